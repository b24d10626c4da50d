import { afterAll } from "vitest";
import { describeUpgradeScenarios } from "./support/scenarios.js";
import { redisPrefixes } from "./support/services.js";

const prefixes = redisPrefixes();
afterAll(() => prefixes.clear());
describeUpgradeScenarios("Redis", () => prefixes.open());
