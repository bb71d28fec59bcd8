// The plugin api a real OpenClaw host hands to `register(api)`
// (shared/reference/real-plugins.md). Members the adapter does not provide are
// reported by name instead of silently being `undefined`.

/**
 * @param {{id: string, pluginConfig: any, stateDir: string, hostRequest: (m: string, p: any) => Promise<any>, report: Report}} o
 */
export function createApi(o) {
  const { report } = o;
  const log = (level) => (...args) => process.stderr.write(`[plugin ${level}] ${args.map(String).join(" ")}\n`);
  const logger = { info: log("info"), warn: log("warn"), error: log("error"), debug: log("debug"), trace: log("trace") };
  const config = { plugins: { entries: { [o.id]: { config: o.pluginConfig } } } };
  const llm = {
    async complete(params) {
      const r = await o.hostRequest("host/llm.complete", params ?? {});
      const text = typeof r?.text === "string" ? r.text : "";
      return { ...r, text, content: [{ type: "text", text }] };
    },
  };
  const api = {
    id: o.id,
    pluginConfig: o.pluginConfig,
    config,
    registrationMode: "full",
    logger,
    resolvePath: (p = ".") => (p.startsWith("/") ? p : `${o.stateDir}/agent/${p}`.replace(/\/\.$/, "")),
    registerContextEngine(id, factory) {
      report.engines.set(id, factory);
    },
    on(hook, handler) {
      if (!report.hooks.has(hook)) report.hooks.set(hook, []);
      report.hooks.get(hook).push(handler);
    },
    registerTool(tool) {
      report.tools.push(typeof tool === "function" ? tool.name || "(factory)" : tool?.name ?? "(unnamed)");
    },
    registerCommand(cmd) {
      report.commands.push(cmd?.name ?? "(unnamed)");
    },
    registerHook(name) {
      report.registeredHooks.push(String(name));
    },
    registerService(svc) {
      report.services.push(svc?.id ?? svc?.name ?? "(unnamed)");
    },
    session: { controls: { registerSessionAction(a) { report.sessionActions.push(a?.id ?? a?.name ?? "(unnamed)"); } } },
    runtime: {
      llm,
      logging: { getChildLogger: () => logger },
      config: { current: () => config, loadConfig: () => config },
    },
  };
  return watch(api, "api", report);
}

/** Report reads of members we do not provide (nested objects included). */
function watch(obj, path, report) {
  return new Proxy(obj, {
    get(target, prop, receiver) {
      if (typeof prop === "symbol" || prop === "then" || prop === "toJSON") return Reflect.get(target, prop, receiver);
      if (!(prop in target)) {
        const name = `${path}.${String(prop)}`;
        if (!report.unknownMembers.includes(name)) {
          report.unknownMembers.push(name);
          process.stderr.write(`clawspec-node-adapter: the plugin read ${name}, which this host does not provide\n`);
        }
        return undefined;
      }
      const v = Reflect.get(target, prop, receiver);
      return v && typeof v === "object" && !Array.isArray(v) && path.split(".").length < 3 && prop !== "pluginConfig" && prop !== "config" ? watch(v, `${path}.${String(prop)}`, report) : v;
    },
  });
}

export class Report {
  constructor() {
    this.engines = new Map();
    this.hooks = new Map();
    this.tools = [];
    this.commands = [];
    this.registeredHooks = [];
    this.services = [];
    this.sessionActions = [];
    this.unknownMembers = [];
    this.stdoutWrites = [];
  }

  toJSON() {
    return {
      engines: [...this.engines.keys()],
      hooks: [...this.hooks.keys()],
      tools: this.tools,
      commands: this.commands,
      registeredHooks: this.registeredHooks,
      services: this.services,
      sessionActions: this.sessionActions,
      unknownApiMembers: this.unknownMembers,
      stdoutWrites: this.stdoutWrites,
    };
  }
}
