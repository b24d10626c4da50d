// @graph/select — glob patterns over nested workflow results: compile, match, select.
export { compile, type Matcher, type MatchCursor, type Path } from "./Matcher.js";
export {
  isSelectPatternError,
  SelectPatternError,
  type SelectPatternErrorReason,
} from "./SelectPatternError.js";
export {
  plainObjectAdapter,
  runResultAdapter,
  selectTree,
  type SelectOptions,
  type TreeAdapter,
} from "./Tree.js";
