/**
 * `@graph/upgrade` — deploy new graph code while workflows are paused.
 *
 * @module
 */
export { checkWorkflows, type UpgradeReport } from "./checkWorkflows.js";
export { type Compatibility, checkCompatibility, type Verdict } from "./compatibility.js";
export { diffGraphs, type GraphChange } from "./diff.js";
export { isReplayError, isUpgradeBlockedError, ReplayError, UpgradeBlockedError } from "./errors.js";
export { drop, type Migration, type UpgradeOptions, upgradable } from "./migrations.js";
export { type DecisionDiff, type ReplayOptions, type ReplayResult, replay, type ValueDiff } from "./replay.js";
export { type GraphStructure, graphStructure, type StructureNode } from "./structure.js";
export { UPGRADE_STEP, type UpgradeWorkflowOptions, upgrades, upgradeWorkflow } from "./upgrade.js";
