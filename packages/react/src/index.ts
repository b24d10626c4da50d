// @graph/react — useGraphChat: the AI SDK's useChat for @graph runs.
export { foldGraphMessages, type GraphView, type NodeActivity } from "./fold.js";
export {
  type GraphChatHelpers,
  type GraphSuspense,
  type UseGraphChatOptions,
  useGraphChat,
} from "./useGraphChat.js";
