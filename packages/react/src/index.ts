// @graph/react — useGraphChat: the AI SDK's useChat for @graph runs.
export { GraphChatError } from "./errors.js";
export { foldGraphMessages, type GraphView, type NodeActivity } from "./fold.js";
export {
  type GraphChatHelpers,
  type GraphSuspense,
  type UseGraphChatOptions,
  useGraphChat,
} from "./useGraphChat.js";
