import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';

/** The official MCP client connected to a running server's /mcp?toolsets=all (every tool) with an API key, and a call that parses the tool's JSON. */
export async function connectMcp(origin: string, apiKey: string, name: string) {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp?toolsets=all', origin), { requestInit: { headers: { authorization: `Bearer ${apiKey}` } } }));
  const call = async (tool: string, args: Record<string, unknown> = {}) => {
    const res = (await client.callTool({ name: tool, arguments: args })) as CallToolResult;
    const text = (res.content[0] as { text: string }).text;
    return { isError: Boolean(res.isError), body: JSON.parse(text) };
  };
  return { client, call };
}
