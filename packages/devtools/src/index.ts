// @graph/devtools — a live view of @graph runs in the browser.
export { type Answer, Devtools, type DevtoolsOptions } from "./Devtools.js";
export { DevtoolsError, isDevtoolsError } from "./DevtoolsError.js";
export { EventLog, type PageEvent } from "./EventLog.js";
export { type GraphView, graphView, type ViewNode } from "./graphView.js";
