// @graph/devtools — a live view of @graph runs in the browser, and a remote control for them.
export { type Answer, type AnswerSchema, type ButtonAnswer, Devtools, type DevtoolsOptions } from "./Devtools.js";
export { DevtoolsError, type DevtoolsErrorKind, isDevtoolsError } from "./DevtoolsError.js";
export { EventLog, type PageEvent } from "./EventLog.js";
export {
  type AnswerForm,
  type GraphView,
  type GraphViewOptions,
  graphView,
  type ViewInput,
  type ViewNode,
} from "./graphView.js";
