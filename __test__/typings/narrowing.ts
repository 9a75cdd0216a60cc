// Typed tools: the usual TypeScript checks reach each member of a typed tool's result
// (`MCPToolResult<Output>` = Output | CallToolResult | ValidationError | void) without a cast.
// Compiled under `tsc --strict` by __test__/typings.test.mjs. Each `@ts-expect-error` is a check
// that must stay an error: if a narrowing stops working, a positive case fails; if it becomes too
// loose (a member lost, or the envelope swallowing the output's keys again), a negative case does.
import { isValidationError } from '@mastra/core/tools';
import type { ValidationError } from '@mastra/core/tools';
import { MCPClient } from '@mastra/mcp';
import type { CallToolResult, ContentBlock, MCPToolResult, MCPTypedTools } from '@mastra/mcp';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Assert<T extends true> = T;

// What `mastra-mcp typegen` writes for two tools: one with an output schema, one whose output has a
// `content` key of its own (as server-filesystem's read_text_file), one without an output schema.
type WeatherGetWeatherInput = { location: string; units?: 'metric' | 'imperial' };
type WeatherGetWeatherOutput = { temperature: number; conditions: string };
type FilesReadInput = { path: string };
type FilesReadOutput = { content: string };
interface MCPServers {
  weather: {
    tools: {
      get_weather: { input: WeatherGetWeatherInput; output: WeatherGetWeatherOutput };
      ping: { input: Record<string, never>; output: unknown };
    };
  };
  files: { tools: { read: { input: FilesReadInput; output: FilesReadOutput } } };
}

declare const server: { command: string; args: string[] };

export async function narrowing() {
  const mcp = new MCPClient<MCPServers>({ servers: { weather: server, files: server } });
  const tools = await mcp.listTools();
  const r = await tools.weather_get_weather?.execute?.({ location: 'Paris' });
  type Whole = Assert<Equal<typeof r, MCPToolResult<WeatherGetWeatherOutput> | undefined>>;

  // @ts-expect-error not narrowed: the call may have given nothing
  r.temperature;
  if (r) {
    // @ts-expect-error not narrowed: the result may be the MCP envelope or a validation error
    const unchecked: number = r.temperature;
    // @ts-expect-error not narrowed: the result may be the MCP envelope or a validation error
    const output: WeatherGetWeatherOutput = r;
    void unchecked;
    void output;
  }

  // (1) A property test on a declared output field: the output, its fields typed.
  if (r && 'temperature' in r) {
    type Output = Assert<Equal<typeof r, WeatherGetWeatherOutput>>;
    const temperature: number = r.temperature;
    const conditions: string = r.conditions;
    // @ts-expect-error the output is not the envelope
    r.content;
    // @ts-expect-error nor a validation error
    r.validationErrors;
    void temperature;
    void conditions;
  }
  // ...and with the documented `typeof` test too.
  if (r && 'temperature' in r && typeof r.temperature === 'number') {
    const temperature: number = r.temperature;
    void temperature;
  }

  // (2) The MCP envelope: `'content' in r` (every CallToolResult has content) or `'isError' in r`.
  if (r && 'content' in r) {
    type Envelope = Assert<Equal<typeof r, CallToolResult>>;
    const content: ContentBlock[] = r.content;
    const failed: boolean | undefined = r.isError;
    const structured: unknown = r.structuredContent;
    // Keys a server adds beyond the protocol's: through Record<string, unknown>, no cast.
    const extra: Record<string, unknown> = r;
    // @ts-expect-error the envelope has no output fields
    const temperature: number = r.temperature;
    // @ts-expect-error the envelope is not the output
    const output: WeatherGetWeatherOutput = r;
    void [content, failed, structured, extra, temperature, output];
  } else if (r) {
    type NotEnvelope = Assert<Equal<typeof r, WeatherGetWeatherOutput | ValidationError>>;
  }
  if (r && 'isError' in r) {
    type Failed = Assert<Equal<typeof r, CallToolResult>>;
    if (r.isError) {
      const blocks: ContentBlock[] = r.content;
      void blocks;
    }
  }

  // (3) Mastra's validation error, by its own shape: `error: true`, `message`, `validationErrors`.
  if (r && 'error' in r && r.error === true) {
    type Refused = Assert<Equal<typeof r, ValidationError>>;
    const message: string = r.message;
    const errors: string[] = r.validationErrors.errors;
    // @ts-expect-error a validation error is not the output
    const output: WeatherGetWeatherOutput = r;
    void [message, errors, output];
  }
  if (r && 'validationErrors' in r) {
    type Refused = Assert<Equal<typeof r, ValidationError>>;
  }
  // ...or by Mastra's runtime guard.
  if (isValidationError(r)) {
    const message: string = r.message;
    void message;
  } else if (r) {
    type Rest = Assert<Equal<typeof r, WeatherGetWeatherOutput | CallToolResult>>;
  }

  // All the way down, each branch exactly one member.
  function describe(result: MCPToolResult<WeatherGetWeatherOutput>): string {
    if (!result) return 'nothing';
    if ('content' in result) return result.isError ? 'tool error' : `${result.content.length} blocks`;
    if ('validationErrors' in result) return result.message;
    type Last = Assert<Equal<typeof result, WeatherGetWeatherOutput>>;
    return `${result.temperature} ${result.conditions}`;
  }
  void describe(r);

  // An output that declares `content` itself: `'content' in r` cannot tell the two apart, so it
  // keeps both (honestly); a key only one of them has does.
  const file = await (await mcp.listToolsets()).files?.read?.execute?.({ path: '/tmp/x' });
  if (file && 'content' in file) {
    type Both = Assert<Equal<typeof file, FilesReadOutput | CallToolResult>>;
    // @ts-expect-error it may be the envelope's content blocks
    const text: string = file.content;
    void text;
    if (typeof file.content === 'string') {
      const text: string = file.content;
      void text;
    }
  }
  if (file && 'isError' in file) {
    type Envelope = Assert<Equal<typeof file, CallToolResult>>;
  }
  if (file && !('error' in file) && !('isError' in file) && !('structuredContent' in file) && !('_meta' in file)) {
    type Rest = Assert<Equal<typeof file, FilesReadOutput | CallToolResult>>;
  }

  // No output schema: the result is `unknown`, narrowed like any untrusted value.
  const pong = await tools.weather_ping?.execute?.({});
  type Unknown = Assert<Equal<typeof pong, unknown>>;
  // @ts-expect-error unknown: check that it is an object first
  if ('content' in pong) void pong;
  if (typeof pong === 'object' && pong !== null && 'content' in pong) void pong.content;

  // The same through the type of `listTools()` alone (as docs/typed-tools.md's preamble declares it).
  const typed: MCPTypedTools<MCPServers> = tools;
  const again = await typed.weather_get_weather?.execute?.({ location: 'Oslo' });
  if (again && 'conditions' in again) {
    const conditions: string = again.conditions;
    void conditions;
  }

  // The envelope is still what it was to code that builds or reads one.
  const built: CallToolResult = { content: [{ type: 'text', text: 'hi' }], isError: false };
  // @ts-expect-error content is required
  const incomplete: CallToolResult = { isError: true };
  void [built, incomplete];
}
