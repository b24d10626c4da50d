/**
 * Storage conformance: the `Checkpointer` contract exercised directly (no runtime), one file per contract area.
 *
 * Every test creates its own checkpointer through the factory and uses workflow ids unique to the test run, so the
 * suite also works when all instances share one database (SQL adapters).
 */
import type { DescribeCheckpointerOptions } from "../options.js";
import { describeAttempts } from "./attempts.js";
import { describeBadInput } from "./badInput.js";
import { describeDeletion } from "./deletion.js";
import { describeFencedCreate } from "./fencedCreate.js";
import { describeFencing } from "./fencing.js";
import { describeGrowth } from "./growth.js";
import { type StorageContext, storageContext } from "./helpers.js";
import { describeIds } from "./ids.js";
import { describeLeases } from "./leases.js";
import { describeLifecycle } from "./lifecycle.js";
import { describeListing } from "./listing.js";
import { describeNodeCache } from "./nodeCache.js";
import { describeRenewal } from "./renewal.js";
import { describeRetention } from "./retention.js";
import { describeRunWrites } from "./runWrites.js";
import { describeSerialization } from "./serialization.js";
import { describeSharedRules } from "./sharedRules.js";
import { describeSteps } from "./steps.js";
import { describeStops } from "./stops.js";
import { describeStructures } from "./structures.js";
import { describeTimes } from "./times.js";
import { describeUnknownIds } from "./unknownIds.js";
import { describeUsage } from "./usage.js";
import { describeWorkflows } from "./workflows.js";
import { describeZombies } from "./zombies.js";

/** The contract areas of the storage suite, in the order they run. */
export const STORAGE_AREAS = [
  "lifecycle",
  "workflows",
  "steps",
  "listing",
  "retention",
  "deletion",
  "serialization",
  "leases",
  "fencing",
  "fencedCreate",
  "runWrites",
  "usage",
  "attempts",
  "renewal",
  "stops",
  "times",
  "structures",
  "nodeCache",
  "zombies",
  "unknownIds",
  "ids",
  "badInput",
  "sharedRules",
  "growth",
] as const;

/** One contract area of the storage suite (see {@link STORAGE_AREAS}). */
export type StorageArea = (typeof STORAGE_AREAS)[number];

const REGISTER: Readonly<Record<StorageArea, (context: StorageContext) => void>> = {
  lifecycle: describeLifecycle,
  workflows: describeWorkflows,
  steps: describeSteps,
  listing: describeListing,
  retention: describeRetention,
  deletion: describeDeletion,
  serialization: describeSerialization,
  leases: describeLeases,
  fencing: describeFencing,
  fencedCreate: describeFencedCreate,
  runWrites: describeRunWrites,
  usage: describeUsage,
  attempts: describeAttempts,
  renewal: describeRenewal,
  stops: describeStops,
  times: describeTimes,
  structures: describeStructures,
  nodeCache: describeNodeCache,
  zombies: describeZombies,
  unknownIds: describeUnknownIds,
  ids: describeIds,
  badInput: describeBadInput,
  sharedRules: describeSharedRules,
  growth: describeGrowth,
};

/** Registers the storage tests of every area, or only of `only`. */
export function describeStorage(options: DescribeCheckpointerOptions, only?: readonly StorageArea[]): void {
  const context = storageContext(options);
  for (const area of STORAGE_AREAS) if (only === undefined || only.includes(area)) REGISTER[area](context);
}
