export { END, type End } from "./END.js";
export { GraphConfigError, RenameError, RoutingError, isGraphConfigError, isRenameError, isRoutingError } from "./errors.js";
export { GateNode, IfElseNode, RouteNode, ifElse, route, type IfElseOptions, type RouteOptions, type Target } from "./gates.js";
export {
  Graph,
  type AnyNode,
  type EdgeDefinition,
  type GraphOptions,
  type InputSpec,
  type StructureEdgeAttributes,
  type StructureNodeAttributes,
} from "./Graph.js";
export { GraphNode, type MapMode, type MapOverConfig } from "./GraphNode.js";
export { InterruptNode, interrupt, type InterruptHandler, type InterruptOptions } from "./interrupt.js";
export { FunctionNode, node, type NodeFunction, type NodeMode, type NodeOptions } from "./node.js";
export type { NodeContext, RetryOptions } from "./NodeContext.js";
export { Analysis as GraphAnalysis } from "./internal/analysis.js";
export { TaggedError as GraphError, hasTag as isTaggedError } from "./internal/errorBase.js";
export { closestName } from "./internal/suggest.js";
