/**
 * Tool calling for the quickstart's mock provider. When a request declares tools and the
 * conversation's last turn is the user's, the mock calls the first declared tool, with
 * arguments made up from its JSON Schema (it is a mock: it does not understand the question).
 * When the last turn carries a tool's result, it answers in text, quoting the result. Each
 * vendor format declares tools and carries results its own way; these read them all.
 */

type Body = Record<string, unknown>;
export type Vendor = 'openai-chat' | 'openai-responses' | 'anthropic' | 'google';

export interface DeclaredTool {
  name: string;
  schema: Body;
}

/** What the mock does next: call a tool, or answer a tool's result. */
export type ToolTurn = { type: 'call'; tool: DeclaredTool; args: Record<string, unknown> } | { type: 'result'; name: string; text: string };

const isBody = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): Body[] => (Array.isArray(v) ? v.filter(isBody) : []);

function declaredTools(vendor: Vendor, body: Body): DeclaredTool[] {
  const tools = list(body.tools);
  switch (vendor) {
    case 'openai-chat':
      return tools.flatMap((t) =>
        isBody(t.function) && typeof t.function.name === 'string'
          ? [{ name: t.function.name, schema: isBody(t.function.parameters) ? t.function.parameters : {} }]
          : [],
      );
    case 'openai-responses':
      return tools.flatMap((t) =>
        t.type === 'function' && typeof t.name === 'string' ? [{ name: t.name, schema: isBody(t.parameters) ? t.parameters : {} }] : [],
      );
    case 'anthropic':
      return tools.flatMap((t) => (typeof t.name === 'string' ? [{ name: t.name, schema: isBody(t.input_schema) ? t.input_schema : {} }] : []));
    case 'google':
      return tools.flatMap((t) =>
        list(t.functionDeclarations).flatMap((f) =>
          typeof f.name === 'string'
            ? [{ name: f.name, schema: isBody(f.parameters) ? f.parameters : isBody(f.parametersJsonSchema) ? f.parametersJsonSchema : {} }]
            : [],
        ),
      );
  }
}

const textOf = (v: unknown): string =>
  typeof v === 'string'
    ? v
    : Array.isArray(v)
      ? v.map((p) => (isBody(p) ? textOf(p.text ?? p.content ?? '') : '')).join(' ')
      : isBody(v)
        ? JSON.stringify(v)
        : '';

/** The result of a tool, when the conversation's last turn carries one. */
function toolResult(vendor: Vendor, body: Body): { name: string; text: string } | null {
  if (vendor === 'openai-chat') {
    const messages = list(body.messages);
    const last = messages.at(-1);
    if (last?.role !== 'tool') return null;
    const call = messages.flatMap((m) => list(m.tool_calls)).find((c) => c.id === last.tool_call_id);
    return { name: isBody(call?.function) ? String(call.function.name) : 'the tool', text: textOf(last.content) };
  }
  if (vendor === 'openai-responses') {
    const items = list(body.input);
    const last = items.at(-1);
    if (last?.type !== 'function_call_output') return null;
    const call = items.find((i) => i.type === 'function_call' && i.call_id === last.call_id);
    return { name: typeof call?.name === 'string' ? call.name : 'the tool', text: textOf(last.output) };
  }
  if (vendor === 'anthropic') {
    const messages = list(body.messages);
    const last = messages.at(-1);
    const result = list(last?.content).find((p) => p.type === 'tool_result');
    if (last?.role !== 'user' || result === undefined) return null;
    const call = messages.flatMap((m) => list(m.content)).find((p) => p.type === 'tool_use' && p.id === result.tool_use_id);
    return { name: typeof call?.name === 'string' ? call.name : 'the tool', text: textOf(result.content) };
  }
  const last = list(body.contents).at(-1);
  const response = list(last?.parts)
    .map((p) => p.functionResponse)
    .find(isBody);
  if (response === undefined) return null;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a mock: the name is echoed as it came
  return { name: String(response.name ?? 'the tool'), text: textOf(response.response) };
}

/** A value of the schema's type: the question for the first string, else a plain example. */
function exampleValue(schema: Body, question: string, first: boolean): unknown {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const type: unknown = Array.isArray(schema.type) ? (schema.type as unknown[])[0] : schema.type;
  switch (String(type).toLowerCase()) {
    case 'number':
    case 'integer':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return first && question !== '' ? question.slice(0, 60) : 'example';
  }
}

function argumentsFor(schema: Body, question: string): Record<string, unknown> {
  const properties = isBody(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.map(String) : Object.keys(properties).slice(0, 1);
  const args: Record<string, unknown> = {};
  let first = true;
  for (const name of required) {
    const property = properties[name];
    args[name] = exampleValue(isBody(property) ? property : {}, question, first);
    first = false;
  }
  return args;
}

/** What the mock does with tools for this request, or null when it declares none. */
export function toolTurn(vendor: Vendor, body: Body, question: string): ToolTurn | null {
  const tools = declaredTools(vendor, body);
  if (tools.length === 0) return null;
  const result = toolResult(vendor, body);
  if (result !== null) return { type: 'result', ...result };
  const tool = tools[0]!;
  return { type: 'call', tool, args: argumentsFor(tool.schema, question) };
}
