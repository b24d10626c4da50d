// @graph/ai-sdk — @graph runs as AI SDK UI message streams, graphs as AI SDK tools.

export { type ChatRequestCode, ChatRequestError, isChatRequestError } from "./errors.js";
export { type ChatRequest, type ChatTurn, GraphChat, type GraphChatOptions } from "./GraphChat.js";
export { type GraphToolOptions, graphInputSchema, graphTool, type PausedToolResult } from "./graphTool.js";
export {
  isUIChunk,
  type ModelUsageLike,
  reportUsage,
  type StreamTextLike,
  streamModel,
  type UIChunk,
  type UsageReportOptions,
  type UsageSink,
  uiChunk,
} from "./modelStream.js";
export type {
  GraphDataParts,
  GraphUIMessage,
  GraphUIMessageChunk,
  NodeEndData,
  NodeStartData,
  RunData,
  StateData,
  SuspenseData,
} from "./parts.js";
export {
  type ResponseOptions,
  type RunSource,
  type StreamOptions,
  toUIMessageStream,
  toUIMessageStreamResponse,
} from "./toUIMessageStream.js";
