/**
 * The default value codec: JSON plus Date, Map, Set, BigInt, Uint8Array, undefined, NaN, ±Infinity and -0.
 *
 * Encoding is a tree walk that produces plain JSON; special values become tagged objects `{"$t": tag, "v": …}`.
 * A user object that itself has a `$t` key is escaped as `{"$t":"Object","v":{…}}`, so every round trip is exact.
 * Decoding is a top-down walk (not a `JSON.parse` reviver, which runs bottom-up and would misread escaped objects).
 */
import { CheckpointError } from "../errors.js";

/** The escape key of tagged objects. */
const TAG = "$t";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Carries the bare reason of a serialisation failure so adapters can rebuild a message with more context. */
export const failureReason: unique symbol = Symbol("@graph/checkpoint/failureReason");

/** The advice appended to every "cannot serialise" message. */
export const SERIALIZATION_ADVICE =
  "Checkpointed values must be plain data: JSON values, Date, Map, Set, BigInt, Uint8Array or undefined. " +
  "Convert the value (for example to a string or a plain object) before returning it, " +
  "register its class with createSerializer({ classes }), or give the checkpointer a custom serializer.";

/**
 * A class registered with the codec: instances whose prototype is exactly `type.prototype` are stored as
 * `{"$t":"Class","n":name,"v":encode(instance)}` (the encoded form is itself encoded, so it may hold Dates, Maps
 * or other registered classes) and read back with `decode`.
 */
export interface RegisteredClass {
  readonly name: string;
  readonly type: abstract new (...args: never[]) => object;
  readonly encode: (value: never) => unknown;
  readonly decode: (value: never) => unknown;
}

/** Registered classes, indexed both ways. */
export interface ClassRegistry {
  readonly byPrototype: ReadonlyMap<object, RegisteredClass>;
  readonly byName: ReadonlyMap<string, RegisteredClass>;
}

const NO_CLASSES: ClassRegistry = { byPrototype: new Map(), byName: new Map() };

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Appends an object key to a value path: `a.b`, `a["b c"]`. */
function pathKey(path: string, key: string): string {
  if (IDENTIFIER.test(key)) return path === "" ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}

/** Joins a prefix (e.g. `values`) and a path relative to it (e.g. `doc[2]`). */
export function joinPath(prefix: string, relative: string): string {
  if (prefix === "") return relative;
  if (relative === "") return prefix;
  if (relative.startsWith("[") || relative.startsWith(".")) return prefix + relative;
  return `${prefix}.${relative}`;
}

function describeMapKey(key: unknown): string | undefined {
  switch (typeof key) {
    case "string":
      return JSON.stringify(key);
    case "number":
    case "boolean":
      return String(key);
    case "bigint":
      return `${key}n`;
    case "undefined":
      return "undefined";
    default:
      return key === null ? "null" : undefined;
  }
}

/**
 * A path segment: an object key (string), an array index (number), a Map entry part or a Set item. Paths are
 * kept as a stack of segments and only formatted when an error is reported (formatting every path eagerly
 * would dominate the cost of serialising small values).
 */
type Segment =
  | string
  | number
  | { readonly mapEntry: number; readonly key: unknown; readonly part: 0 | 1 }
  | { readonly setItem: number };

function formatPath(segments: readonly Segment[]): string {
  let path = "";
  for (const segment of segments) {
    if (typeof segment === "string") path = pathKey(path, segment);
    else if (typeof segment === "number") path += `[${segment}]`;
    else if ("setItem" in segment) path += `.values()[${segment.setItem}]`;
    else {
      const described = segment.part === 1 ? describeMapKey(segment.key) : undefined;
      path += described === undefined ? `.entries()[${segment.mapEntry}][${segment.part}]` : `.get(${described})`;
    }
  }
  return path;
}

function fail(segments: readonly Segment[], reason: string): never {
  const path = formatPath(segments);
  const where = path === "" ? "the value itself" : `the value at path '${path}'`;
  const error = new CheckpointError({
    message: `Cannot serialize ${where}: ${reason}. ${SERIALIZATION_ADVICE}`,
    ...(path === "" ? {} : { path }),
    operation: "serialize",
  });
  Object.defineProperty(error, failureReason, { value: reason, enumerable: false });
  throw error;
}

function describeInstance(value: object): string {
  const constructorName = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof constructorName === "string" && constructorName !== ""
    ? `an instance of ${constructorName}, which is not a supported type`
    : "an object with a custom prototype, which is not a supported type";
}

function tagged(tag: string, v?: Json): Json {
  return v === undefined ? { $t: tag } : { $t: tag, v };
}

function encodeNumber(value: number): Json {
  if (Number.isFinite(value)) return Object.is(value, -0) ? tagged("Number", "-0") : value;
  return tagged("Number", Number.isNaN(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity");
}

function encodeBytes(value: Uint8Array): string {
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64");
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

class Encoder {
  readonly path: Segment[] = [];
  readonly ancestors = new Set<object>();

  constructor(readonly classes: ClassRegistry) {}

  /** Encodes a child value under `segment`. */
  child(value: unknown, segment: Segment): Json {
    this.path.push(segment);
    const json = this.encode(value);
    this.path.pop();
    return json;
  }

  encode(value: unknown): Json {
    switch (typeof value) {
      case "string":
      case "boolean":
        return value;
      case "number":
        return encodeNumber(value);
      case "undefined":
        return tagged("undefined");
      case "bigint":
        return tagged("BigInt", value.toString());
      case "function":
        return fail(this.path, `it is a function${value.name ? ` (${value.name})` : ""}`);
      case "symbol":
        return fail(this.path, `it is a symbol (${String(value.description)})`);
      case "object":
        break;
    }
    if (value === null) return null;
    const object = value as object;
    if (this.ancestors.has(object)) return fail(this.path, "it is a circular reference to one of its own containers");
    this.ancestors.add(object);
    try {
      return this.encodeObject(object);
    } finally {
      this.ancestors.delete(object);
    }
  }

  encodeObject(object: object): Json {
    if (Array.isArray(object)) {
      const out: Json[] = new Array(object.length);
      for (let i = 0; i < object.length; i++) out[i] = this.child(object[i], i);
      return out;
    }
    const proto: unknown = Object.getPrototypeOf(object);
    if (proto === Object.prototype || proto === null) return this.encodePlain(object);
    const registered = this.classes.byPrototype.get(proto as object);
    if (registered !== undefined) return this.encodeRegistered(object, registered);
    if (object instanceof Date) {
      const time = object.getTime();
      return tagged("Date", Number.isNaN(time) ? null : object.toISOString());
    }
    if (object instanceof Map) {
      const entries: Json[] = [];
      let i = 0;
      for (const [key, entry] of object) {
        const keyJson = this.child(key, { mapEntry: i, key, part: 0 });
        entries.push([keyJson, this.child(entry, { mapEntry: i, key, part: 1 })]);
        i++;
      }
      return tagged("Map", entries);
    }
    if (object instanceof Set) {
      const items: Json[] = [];
      let i = 0;
      for (const item of object) items.push(this.child(item, { setItem: i++ }));
      return tagged("Set", items);
    }
    if (object instanceof Uint8Array) return tagged("Uint8Array", encodeBytes(object));
    return fail(this.path, describeInstance(object));
  }

  encodeRegistered(object: object, registered: RegisteredClass): Json {
    let encoded: unknown;
    try {
      encoded = (registered.encode as (value: object) => unknown)(object);
    } catch (cause) {
      return fail(
        this.path,
        `the encode function registered for class '${registered.name}' threw (${describeThrown(cause)})`,
      );
    }
    return { $t: "Class", n: registered.name, v: this.encode(encoded) };
  }

  encodePlain(object: object): Json {
    for (const symbol of Object.getOwnPropertySymbols(object)) {
      if (Object.prototype.propertyIsEnumerable.call(object, symbol)) {
        fail(this.path, `it has a symbol key (${String(symbol.description)}), which JSON cannot represent`);
      }
    }
    const out: { [key: string]: Json } = {};
    let escaped = false;
    for (const key of Object.keys(object)) {
      if (key === TAG) escaped = true;
      setOwn(out, key, this.child((object as Record<string, unknown>)[key], key));
    }
    return escaped ? tagged("Object", out) : out;
  }
}

function describeThrown(cause: unknown): string {
  return cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
}

/** Encodes `value` to JSON text. Throws `CheckpointError` (with a relative `path`) for unsupported values. */
export function encodeToText(value: unknown, classes: ClassRegistry = NO_CLASSES): string {
  return JSON.stringify(new Encoder(classes).encode(value));
}

function corrupt(segments: readonly Segment[], reason: string): never {
  const path = formatPath(segments);
  const where = path === "" ? "the stored value" : `the stored value at path '${path}'`;
  throw new CheckpointError({
    message:
      `Cannot deserialize ${where}: ${reason}. The stored data is corrupt or was written by an incompatible ` +
      "serializer; use the serializer that wrote it, or delete the workflow.",
    ...(path === "" ? {} : { path }),
    operation: "deserialize",
  });
}

function isJsonObject(value: unknown): value is { [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

class Decoder {
  readonly path: Segment[] = [];

  constructor(readonly classes: ClassRegistry) {}

  child(json: unknown, segment: Segment): unknown {
    this.path.push(segment);
    const value = this.decode(json);
    this.path.pop();
    return value;
  }

  decodePlain(object: { [key: string]: unknown }): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(object)) setOwn(out, key, this.child(object[key], key));
    return out;
  }

  decode(json: unknown): unknown {
    if (json === null || typeof json !== "object") return json;
    if (Array.isArray(json)) {
      const out: unknown[] = new Array(json.length);
      for (let i = 0; i < json.length; i++) out[i] = this.child(json[i], i);
      return out;
    }
    const object = json as { [key: string]: unknown };
    if (!Object.hasOwn(object, TAG)) return this.decodePlain(object);
    if (object[TAG] === "Class") return this.decodeRegistered(object["n"], object["v"]);
    return this.decodeTagged(object[TAG], object["v"]);
  }

  decodeRegistered(name: unknown, v: unknown): unknown {
    if (typeof name !== "string") return corrupt(this.path, "a class instance without a class name");
    const registered = this.classes.byName.get(name);
    if (registered === undefined) {
      return corrupt(
        this.path,
        `it is an instance of class '${name}', which is not registered with this serializer ` +
          "(register it with createSerializer({ classes }))",
      );
    }
    const fields = this.decode(v);
    try {
      return (registered.decode as (value: unknown) => unknown)(fields);
    } catch (cause) {
      return corrupt(this.path, `the decode function registered for class '${name}' threw (${describeThrown(cause)})`);
    }
  }

  decodeTagged(tag: unknown, v: unknown): unknown {
    switch (tag) {
      case "undefined":
        return undefined;
      case "Number":
        switch (v) {
          case "NaN":
            return Number.NaN;
          case "Infinity":
            return Number.POSITIVE_INFINITY;
          case "-Infinity":
            return Number.NEGATIVE_INFINITY;
          case "-0":
            return -0;
        }
        return corrupt(this.path, `unknown special number ${JSON.stringify(v)}`);
      case "BigInt":
        if (typeof v === "string" && /^-?\d+$/.test(v)) return BigInt(v);
        return corrupt(this.path, "a BigInt without a decimal string");
      case "Date":
        if (v === null) return new Date(Number.NaN);
        if (typeof v === "string") {
          const date = new Date(v);
          if (!Number.isNaN(date.getTime())) return date;
        }
        return corrupt(this.path, "a Date without a valid ISO string");
      case "Uint8Array":
        if (typeof v === "string") return new Uint8Array(Buffer.from(v, "base64"));
        return corrupt(this.path, "a Uint8Array without a base64 string");
      case "Map": {
        if (!Array.isArray(v)) return corrupt(this.path, "a Map without an entry list");
        const map = new Map<unknown, unknown>();
        v.forEach((entry: unknown, i) => {
          if (!Array.isArray(entry) || entry.length !== 2) {
            corrupt(this.path, `Map entry ${i} is not a [key, value] pair`);
          }
          const pair = entry as [unknown, unknown];
          const key = this.child(pair[0], { mapEntry: i, key: undefined, part: 0 });
          map.set(key, this.child(pair[1], { mapEntry: i, key, part: 1 }));
        });
        return map;
      }
      case "Set": {
        if (!Array.isArray(v)) return corrupt(this.path, "a Set without an item list");
        const set = new Set<unknown>();
        v.forEach((item: unknown, i) => set.add(this.child(item, { setItem: i })));
        return set;
      }
      case "Object":
        if (isJsonObject(v)) return this.decodePlain(v);
        return corrupt(this.path, "an escaped object without its fields");
      default:
        return corrupt(this.path, `unknown type tag ${JSON.stringify(tag)}`);
    }
  }
}

/** Decodes text written by {@link encodeToText}. Throws `CheckpointError` for malformed input. */
export function decodeFromText(text: string, classes: ClassRegistry = NO_CLASSES): unknown {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new CheckpointError({
      message:
        `Cannot deserialize a stored value: it is not valid JSON (${(cause as Error).message}). ` +
        "The stored data is corrupt or was written by an incompatible serializer.",
      operation: "deserialize",
      cause,
    });
  }
  return new Decoder(classes).decode(json);
}
