// @graph/select — glob patterns over nested workflow results: compile, match, select.
export { compile, type MatchCursor, type Matcher, type Path } from "./Matcher.js";
export { isSelectInputError, SelectInputError, type SelectInputErrorReason } from "./SelectInputError.js";
export {
  isSelectPatternError,
  SelectPatternError,
  type SelectPatternErrorReason,
} from "./SelectPatternError.js";
export {
  plainObjectAdapter,
  runResultAdapter,
  type SelectOptions,
  selectTree,
  type TreeAdapter,
} from "./Tree.js";
