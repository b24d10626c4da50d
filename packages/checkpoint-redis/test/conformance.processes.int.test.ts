// The engine tests of the conformance suite that start child processes (crash matrix, SIGKILL, races, zombies).
import { describeConformance } from "./fixtures/conformance.js";

describeConformance("processes");
