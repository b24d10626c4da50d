// The otel README's Jaeger recipe installs three OpenTelemetry packages this repository does not depend on. They
// are declared here with the part of their API the recipe uses, built on the installed sdk-trace-base types, so
// the recipe is still type-checked. Keep each declaration to what a README example calls.

declare module "@opentelemetry/sdk-trace-node" {
  import { BasicTracerProvider, type SDKRegistrationConfig } from "@opentelemetry/sdk-trace-base";

  export * from "@opentelemetry/sdk-trace-base";
  /** A tracer provider whose `register()` also installs the AsyncLocalStorage context manager. */
  export class NodeTracerProvider extends BasicTracerProvider {
    register(config?: SDKRegistrationConfig): void;
  }
}

declare module "@opentelemetry/resources" {
  import type { AttributeValue } from "@opentelemetry/api";
  import type { TracerConfig } from "@opentelemetry/sdk-trace-base";
  export type Resource = NonNullable<TracerConfig["resource"]>;
  export function resourceFromAttributes(attributes: Record<string, AttributeValue>): Resource;
}

declare module "@opentelemetry/exporter-trace-otlp-http" {
  import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
  export interface OTLPExporterNodeConfigBase {
    url?: string;
    headers?: Record<string, string>;
    timeoutMillis?: number;
  }
  export interface OTLPTraceExporter extends SpanExporter {}
  export class OTLPTraceExporter {
    constructor(config?: OTLPExporterNodeConfigBase);
  }
}
