// The tool-server (MCP) manager the session uses: see docs/mcp.md.
export { createMcpManager, type McpManager, type McpManagerOptions } from "./manager.ts";
export { engineToolName } from "./tools.ts";
export { DEFAULT_PASS_ENV, childEnvironment } from "./stdio-transport.ts";
export type {
  McpChangeEvent,
  McpChangeListener,
  McpClock,
  McpElicitation,
  McpElicitationAnswer,
  McpElicitationHandler,
  McpPromptEntry,
  McpResourceEntry,
  McpResourceTemplateEntry,
  McpLogEntry,
  McpLogSink,
  McpProgressEvent,
  McpProgressListener,
  McpServerConfig,
  McpServerState,
  McpServerStatus,
} from "./types.ts";
