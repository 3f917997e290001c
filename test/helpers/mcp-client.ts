// Tool calls through the official MCP SDK client, as the MCP tests read them.
import { expect } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

type Json = Record<string, any>;

/** A tool's answer: its structured content, after the client checked it against the tool's output schema. */
export async function call(client: Client, name: string, args: Json = {}): Promise<Json> {
  const result = (await client.callTool({ name, arguments: args })) as Json;
  expect(result.isError ?? false).toBe(false);
  return result.structuredContent as Json;
}

/** A refused tool call: the problem the use case answered, as the tool's error text. */
export async function refusal(client: Client, name: string, args: Json): Promise<Json> {
  const result = (await client.callTool({ name, arguments: args })) as Json;
  expect(result.isError).toBe(true);
  return JSON.parse(result.content[0].text) as Json;
}
