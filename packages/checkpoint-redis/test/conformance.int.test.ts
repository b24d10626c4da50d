// The storage tests and the engine tests that run in this process (conformance.processes.int.test.ts has the rest).
import { describeConformance } from "./fixtures/conformance.js";

describeConformance("in-process");
