// Results of SDK-computed plugin assertions, submitted with submit_plugin_result and looked up by
// evaluate_batch (by trace id, assertion id and, when the spec names one, plugin name).

export interface PluginResult {
  readonly status: 'pass' | 'soft_fail' | 'hard_fail';
  readonly score: number;
  readonly explanation: string;
  readonly metadata?: Readonly<Record<string, unknown>>;
}

export interface StoredPluginResult extends PluginResult {
  readonly plugin_name: string;
}

/** Kept per engine session; a newer submission for the same key replaces the older one. */
export class PluginResults {
  readonly #byTraceAndAssertion = new Map<string, Map<string, PluginResult>>();

  /** Keeps status, score, explanation and metadata; anything else in `result` (the SDKs' assertion_id, cost, duration_ms) is dropped. */
  submit(traceId: string, assertionId: string, pluginName: string, result: PluginResult): void {
    const key = JSON.stringify([traceId, assertionId]);
    const byPlugin = this.#byTraceAndAssertion.get(key) ?? new Map<string, PluginResult>();
    const { status, score, explanation, metadata } = result;
    byPlugin.set(pluginName, { status, score, explanation, ...(metadata === undefined ? {} : { metadata }) });
    this.#byTraceAndAssertion.set(key, byPlugin);
  }

  /** The result for this trace and assertion; without a plugin name, only if exactly one plugin submitted. */
  find(traceId: string, assertionId: string, pluginName?: string): StoredPluginResult | undefined {
    const byPlugin = this.#byTraceAndAssertion.get(JSON.stringify([traceId, assertionId]));
    if (byPlugin === undefined) return undefined;
    if (pluginName !== undefined) {
      const result = byPlugin.get(pluginName);
      return result === undefined ? undefined : { ...result, plugin_name: pluginName };
    }
    if (byPlugin.size !== 1) return undefined;
    const [[name, result]] = [...byPlugin] as [[string, PluginResult]];
    return { ...result, plugin_name: name };
  }
}
