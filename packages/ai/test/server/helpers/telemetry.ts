import { context } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { AggregationTemporality, MeterProvider, MetricReader, type DataPoint, type Histogram } from '@opentelemetry/sdk-metrics'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { openTelemetry, type OpenTelemetryOptions } from '@toolgate/ai/telemetry'

/** Collects metrics when asked, as a pull exporter would. */
class TestReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE })
  }
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

/** The SDK's in-memory exporter and a metric reader behind `openTelemetry()`, as an app wires an OTLP exporter. */
export function recordTelemetry() {
  const exporter = new InMemorySpanExporter()
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const reader = new TestReader()
  const meterProvider = new MeterProvider({ readers: [reader] })
  return {
    exporter,
    /** A telemetry of its own per handler instance, on the same providers (as two processes exporting to one collector). */
    telemetry: (options: Omit<OpenTelemetryOptions, 'tracerProvider' | 'meterProvider'> = {}) => openTelemetry({ tracerProvider, meterProvider, ...options }),
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    span(name: string | RegExp): ReadableSpan {
      const found = exporter.getFinishedSpans().filter((span) => (typeof name === 'string' ? span.name === name : name.test(span.name)))
      if (found.length !== 1) throw new Error(`expected one span named ${String(name)}, got ${found.length}: ${exporter.getFinishedSpans().map((span) => span.name).join(', ')}`)
      return found[0]!
    },
    /** Each data point of a metric: its attributes and value (a sum, or a histogram's count and sum). */
    async metric(name: string): Promise<{ attributes: Record<string, unknown>; value: number | { count: number; sum: number } }[]> {
      const { resourceMetrics } = await reader.collect()
      const metric = resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics).find((candidate) => candidate.descriptor.name === name)
      const points = (metric?.dataPoints ?? []) as DataPoint<number | Histogram>[]
      return points.map((point) => ({
        attributes: point.attributes,
        value: typeof point.value === 'number' ? point.value : { count: point.value.count, sum: point.value.sum ?? 0 },
      }))
    },
  }
}

/** AsyncLocalStorage as the context manager, as `NodeSDK` registers it: a tool's own spans nest under its call. */
export function useContextManager(): () => void {
  const manager = new AsyncLocalStorageContextManager().enable()
  context.setGlobalContextManager(manager)
  return () => {
    manager.disable()
    context.disable()
  }
}

/** Milliseconds since the epoch of an OpenTelemetry `HrTime`. */
export function millis([seconds, nanos]: readonly [number, number]): number {
  return seconds * 1000 + nanos / 1e6
}

export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId
}
