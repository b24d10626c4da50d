// @graph/otel — OpenTelemetry traces for @graph runs.
export { type OtelOptions, OtelProcessor } from "./OtelProcessor.js";
export { memoryTraceLinks, type TraceLinkStore } from "./traceLinks.js";
