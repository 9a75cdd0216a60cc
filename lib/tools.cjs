'use strict';
// Builds Mastra tools from MCP tool descriptions. The native core has already fetched, paged and
// cached the list and shapes every call result; this file only adapts to Mastra's Tool object.
const { fromNative } = require('./errors.cjs');
const { attachMcpCallToolContent, structuredToModelOutput } = require('./call-tool-content.cjs');
const { traceMetaOf } = require('./trace-context.cjs');
const telemetry = require('./telemetry.cjs');
const { inputSchemaFor, outputSchemasFor } = require('./shared-schemas.cjs');
const { isPolicyCode, METHODS, DEFAULT_ABORT_REASON } = require('./client/defaults.cjs');
const { log } = require('./client/events.cjs');
const ids = require('./client/ids.cjs');

function rawSchema(schema) {
  return schema && typeof schema === 'object' && 'jsonSchema' in schema ? schema.jsonSchema : schema;
}

/**
 * What a tool's Mastra object holds that depends only on its listed entry and the server's name:
 * shared by every client whose listing shares the entry (see `sharedToolList`), so a per-user
 * client's tools hold little of their own. Read-only.
 */
const staticParts = new WeakMap();

function staticPartsOf(server, entry, key) {
  const known = staticParts.get(entry);
  if (known?.server === server && known.id === key) return known;
  const tool = entry.tool;
  const meta = entry.stampedMeta;
  const annotations = tool.annotations;
  const parts = {
    server,
    // The name handed to Mastra (`lib/client/toolsets.cjs`: fits the model's rules, unique in the client).
    id: key,
    mcp: meta || annotations ? { ...(meta ? { _meta: meta } : {}), ...(annotations ? { annotations } : {}) } : undefined,
  };
  staticParts.set(entry, parts);
  return parts;
}

/** The `mcpMetadata` of a server's tools: one object for all the tools of one listing. */
function mcpMetadataOf(ctx, session) {
  const { server, def } = ctx;
  return (ctx.mcpMetadata ??= {
    serverName: server,
    serverVersion: session.serverVersion ?? undefined,
    serverInstructions: session.instructions ?? undefined,
    forwardInstructions: def.forwardInstructions ?? false,
    instructionsMaxLength: def.instructionsMaxLength,
  });
}

/**
 * @param ctx {{ host, native, server, def, deps, coreTools, telemetry, callContexts }} (`lib/client/toolsets.cjs`)
 * @param entry {{ tool, stampedMeta?, strict? }} from the native `listTools`
 * @param session {{ serverVersion?, instructions?, connectFirst? }}
 */
function buildTool(ctx, entry, session, key = `${ctx.server}_${entry.tool.name}`) {
  const { server, def, coreTools } = ctx;
  const tool = entry.tool;
  const outputJsonSchema = rawSchema(tool.outputSchema);
  // Held by `execute`: the shared entry lives as long as this tool.
  const outputSchemas = outputJsonSchema ? outputSchemasFor(coreTools, outputJsonSchema, entry.outputSchemaKey) : undefined;
  const statics = staticPartsOf(server, entry, key);

  let requireApproval;
  let needsApprovalFn;
  if (typeof def.requireToolApproval === 'function') {
    const policy = def.requireToolApproval;
    const annotations = tool.annotations;
    requireApproval = true;
    needsApprovalFn = (args, approvalCtx = {}) => policy({ toolName: tool.name, args, ...approvalCtx, annotations });
  } else if (def.requireToolApproval === true) {
    requireApproval = true;
  }

  const built = coreTools.createTool({
    id: statics.id,
    description: tool.description || '',
    inputSchema: inputSchemaFor(coreTools, rawSchema(tool.inputSchema), entry.inputSchemaKey) ?? { type: 'object' },
    outputSchema: outputSchemas?.permissive,
    strict: entry.strict,
    ...(statics.mcp ? { mcp: statics.mcp } : {}),
    requireApproval,
    mcpMetadata: mcpMetadataOf(ctx, session),
    ...(outputJsonSchema ? { toModelOutput: structuredToModelOutput } : {}),
    execute: (input, context) => executeTool(ctx, tool.name, session, outputSchemas, input, context),
  });
  if (needsApprovalFn) built.needsApprovalFn = needsApprovalFn;
  return built;
}

/** One call of a listed tool, from Mastra's `execute(input, context)`. */
async function executeTool(ctx, toolName, session, outputSchemas, input, context) {
  const { native, def } = ctx;
  const signal = context?.abortSignal;
  if (signal?.aborted) throw abortError(signal);
  // A client span when the app registered a tracer (a child of the caller's active context).
  const op = telemetry.startOperation(ctx.telemetry, def, METHODS.callTool, toolName, {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': toolName,
    ...(session?.protocolVersion ? { 'mcp.protocol.version': session.protocolVersion } : {}),
  }, native);
  // The trace context of the caller's request (read now, in its async context; an explicit
  // `traceContext` beats the span's). The core builds the request `_meta` from it, the user's
  // `_meta` and the progress token (the run id, else one of its own): src/core/tool_call/request_meta.rs.
  const traceMeta = traceMetaOf(def) ?? op?.meta;
  const userMeta = context?._meta;
  const requestContext = context?.requestContext ?? null;
  log(ctx.host, ctx.server, 'debug', `Executing tool: ${toolName}`, { toolArgs: input, runId: context?.runId }, requestContext);
  // Held until the call settles (released in `finally`): no other pending operation gets it.
  const callId = ids.allocate();
  let onAbort;
  if (typeof signal?.addEventListener === 'function') {
    onAbort = () => native.cancel(callId, String(signal.reason ?? DEFAULT_ABORT_REASON));
    signal.addEventListener('abort', onAbort, { once: true });
  }
  const callContexts = ctx.callContexts;
  if (callContexts) callContexts.set(callId, requestContext);
  let shaped;
  try {
    const args = input && typeof input === 'object' && !Array.isArray(input) ? input : {};
    shaped = await ctx.host.callTool(ctx.server, toolName, args, JSON.stringify(args), callId, {
      progress: def.enableProgressTracking ?? undefined,
      runId: context?.runId ?? undefined,
      traceJson: traceMeta ? JSON.stringify(traceMeta) : undefined,
      metaJson: userMeta ? JSON.stringify(userMeta) : undefined,
    });
  } catch (raw) {
    const plain = fromNative(raw);
    const err = policyError(ctx, toolName, plain) ?? plain;
    telemetry.endOperation(op, { error: plain, raw });
    log(ctx.host, ctx.server, 'error', `Error calling tool: ${toolName}`, { error: err?.message, toolArgs: input }, requestContext);
    throw err;
  } finally {
    if (callContexts) callContexts.delete(callId);
    if (onAbort) signal.removeEventListener('abort', onAbort);
    ids.release(callId);
  }
  telemetry.endOperation(op, {
    trace: shaped.trace,
    toolError: shaped.kind === 'toolError' ? shaped.text || true : undefined,
    rpcCode: shaped.rpcCode,
  });
  if (shaped.kind === 'toolError') {
    log(ctx.host, ctx.server, 'debug', `Tool reported an error: ${toolName}`, { error: shaped.text, toolArgs: input }, requestContext);
  }
  return shapeForMastra(ctx, toolName, outputSchemas, shaped);
}

/** allowedHosts / redirect refusals surface as MastraErrors with the anchor's ids. */
function policyError(ctx, toolName, err) {
  if (!isPolicyCode(err?.nativeCode)) return undefined;
  const { MastraError, ErrorDomain, ErrorCategory } = ctx.deps;
  return new MastraError(
    {
      id: err.nativeCode,
      domain: ErrorDomain.MCP,
      category: ErrorCategory.USER,
      text: err.message,
      details: { toolName, serverName: ctx.server },
    },
    err,
  );
}

function shapeForMastra(ctx, toolName, outputSchemas, shaped) {
  if (shaped.kind === 'toolError') {
    if ((ctx.def.onToolError ?? 'throw') === 'return') return shaped.result;
    const { MastraError, ErrorDomain, ErrorCategory } = ctx.deps;
    throw new MastraError({
      id: 'MCP_CLIENT_TOOL_EXECUTION_FAILED',
      domain: ErrorDomain.MCP,
      category: ErrorCategory.THIRD_PARTY,
      text: shaped.text,
      details: { toolName, serverName: ctx.server },
    });
  }
  if (shaped.kind === 'structured') {
    const { coreTools } = ctx;
    if (outputSchemas?.validator && coreTools.validateToolOutput) {
      const validation = coreTools.validateToolOutput(outputSchemas.validator, shaped.value, toolName);
      if (validation?.error) return validation.error;
    }
    return attachMcpCallToolContent(shaped.value, shaped.content, shaped.meta ?? undefined);
  }
  return shaped.result;
}

function abortError(signal) {
  const err = new Error(String(signal.reason ?? DEFAULT_ABORT_REASON));
  err.name = 'SdkError';
  err.code = 'ABORTED';
  return err;
}

/**
 * The JSON-safe definition of a tool (for caching catalogs across processes). Copies: the listed
 * entries are shared with other clients, and their schemas may back shared validators (see
 * shared-schemas.cjs).
 */
function toDefinition(server, entry, session) {
  const t = entry.tool;
  return {
    name: t.name,
    ...(t.title !== undefined ? { title: t.title } : {}),
    ...(t.description ? { description: t.description } : {}),
    inputSchema: structuredClone(t.inputSchema),
    ...(t.outputSchema ? { outputSchema: structuredClone(t.outputSchema) } : {}),
    ...(t.annotations ? { annotations: structuredClone(t.annotations) } : {}),
    ...(t._meta ? { _meta: structuredClone(t._meta) } : {}),
    // What the tool says of running as a task: a client rebuilding it calls it as it says.
    ...(t.execution ? { execution: structuredClone(t.execution) } : {}),
    server: {
      name: server,
      ...(session.serverVersion ? { version: session.serverVersion } : {}),
      ...(session.instructions ? { instructions: session.instructions } : {}),
    },
  };
}

module.exports = { buildTool, toDefinition };
