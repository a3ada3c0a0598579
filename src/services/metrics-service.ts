/**
 * What a caller of GET /metrics may see (docs/metrics.md "Visible receivers"). A caller who sees
 * every receiver gets the exposition as rendered. A caller limited to some receivers gets it
 * filtered by label, with the rule status-service applies to components:
 *   - `receiver="<id>"`: kept only for a visible receiver id; anything else (`gateway`, the
 *     gateway's own events, or a component name standing in for an unknown id) is dropped;
 *   - `component="<name>"`: kept only for a component the caller's status shows;
 *   - series without either label (outputs, the store, the journal, the process) are gateway-wide
 *     and kept.
 * The filter fails closed: a component that appeared after the render, or a line that does not
 * parse, is dropped.
 */
import type { HealthRegistry } from '../core/health.js';
import { visibleComponent } from '../core/component-receiver.js';
import { filterExposition, type LabelPredicate } from '../metrics/visible-series.js';
import { seesReceiver, type Viewer } from './status-service.js';

export interface MetricsSource {
  render(): Promise<{ body: string; contentType: string }>;
}

/** The samples a viewer limited to some receivers may see; the components are read once per scrape. */
export function seriesVisibleTo(health: HealthRegistry, viewer: Viewer): LabelPredicate {
  const shown = new Set(
    health
      .snapshot()
      .filter((c) => visibleComponent(c, viewer.visibleReceivers))
      .map((c) => c.name),
  );
  return function visibleSeries(labels) {
    const receiver = labels.receiver;
    if (receiver !== undefined && !(/^\d+$/.test(receiver) && seesReceiver(viewer, Number(receiver)))) return false;
    return labels.component === undefined || shown.has(labels.component);
  };
}

export async function metricsFor(
  source: MetricsSource,
  health: HealthRegistry,
  viewer: Viewer,
): Promise<{ body: string; contentType: string }> {
  const rendered = await source.render();
  if (viewer.visibleReceivers === null) return rendered;
  return { body: filterExposition(rendered.body, seriesVisibleTo(health, viewer)), contentType: rendered.contentType };
}
