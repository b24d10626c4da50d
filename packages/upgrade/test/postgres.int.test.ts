import { afterAll } from "vitest";
import { describeUpgradeScenarios } from "./support/scenarios.js";
import { postgresSchemas } from "./support/services.js";

const schemas = postgresSchemas();
afterAll(() => schemas.drop());
describeUpgradeScenarios("PostgreSQL", () => schemas.open("scenarios"));
