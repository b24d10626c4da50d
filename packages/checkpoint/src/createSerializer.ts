/**
 * A serializer that also stores instances of registered classes (LangChain-style messages, `Error`, `RegExp`,
 * your own classes) through an encode/decode pair.
 *
 * @module
 */
import { CheckpointError } from "./errors.js";
import type { ClassRegistry, RegisteredClass } from "./internal/codec.js";
import { decodeFromText, encodeToText } from "./internal/codec.js";
import type { Serializer } from "./Serializer.js";

/**
 * How one class is stored. An instance whose prototype is exactly `type.prototype` (subclasses are not matched:
 * they would come back as the base class) is stored as `{"$t":"Class","n":name,"v":encode(instance)}`. What
 * `encode` returns is itself serialised, so it may hold Dates, Maps or instances of other registered classes;
 * `decode` receives it back and rebuilds the instance.
 *
 * `name` is what is written to storage: keep it stable across releases (renaming the class in code is fine,
 * renaming `name` makes stored rows unreadable).
 *
 * @example
 * ```ts
 * const aiMessage: ClassCodec<AIMessage, { content: string }> = {
 *   name: "AIMessage",
 *   type: AIMessage,
 *   encode: (message) => ({ content: message.content }),
 *   decode: (fields) => new AIMessage(fields),
 * };
 * ```
 */
export interface ClassCodec<T extends object = object, E = unknown> {
  /** The stored name; unique within one serializer. */
  readonly name: string;
  /** The class (constructor) whose direct instances this codec handles. */
  readonly type: abstract new (
    ...args: never[]
  ) => T;
  /** Turns an instance into serialisable data (plain objects, arrays, Dates, Maps, registered classes…). */
  encode(value: T): E;
  /** Rebuilds an instance from what `encode` returned. */
  decode(value: E): T;
}

/**
 * Options of {@link createSerializer}.
 *
 * @example
 * ```ts
 * const options: SerializerOptions = { classes: [aiMessage, errorCodec] };
 * ```
 */
export interface SerializerOptions {
  /** Classes to store through their encode/decode pair, in addition to the default format. */
  readonly classes?: readonly ClassCodec[];
}

/** Types the default format already handles; registering them would change how existing rows read back. */
const BUILT_IN: ReadonlyMap<object, string> = new Map<object, string>([
  [Object.prototype, "Object"],
  [Array.prototype, "Array"],
  [Date.prototype, "Date"],
  [Map.prototype, "Map"],
  [Set.prototype, "Set"],
  [Uint8Array.prototype, "Uint8Array"],
]);

function invalid(message: string): CheckpointError {
  return new CheckpointError({ message, operation: "createSerializer" });
}

function checkEntry(entry: unknown, i: number): RegisteredClass {
  const where = `createSerializer: classes[${i}]`;
  if (typeof entry !== "object" || entry === null) {
    throw invalid(`${where} must be an object { name, type, encode, decode }, got ${String(entry)}.`);
  }
  const { name, type, encode, decode } = entry as Record<string, unknown>;
  if (typeof name !== "string" || name === "") {
    throw invalid(`${where}.name must be a non-empty string (the name written to storage), got ${String(name)}.`);
  }
  if (typeof type !== "function" || typeof type.prototype !== "object" || type.prototype === null) {
    throw invalid(`${where} ('${name}'): type must be the class itself (a constructor), got ${typeof type}.`);
  }
  const builtIn = BUILT_IN.get(type.prototype as object);
  if (builtIn !== undefined) {
    throw invalid(
      `${where} ('${name}'): ${builtIn} is already stored by the default format and cannot be registered. ` +
        "Remove it from classes.",
    );
  }
  for (const [field, value] of [
    ["encode", encode],
    ["decode", decode],
  ] as const) {
    if (typeof value !== "function") {
      throw invalid(`${where} ('${name}'): ${field} must be a function, got ${typeof value}.`);
    }
  }
  return entry as RegisteredClass;
}

/**
 * Builds a serializer with the default format plus the given classes. Pass it as the `serializer` option of any
 * checkpointer (`MemoryCheckpointer`, `SqliteCheckpointer`, `PostgresCheckpointer`, `RedisCheckpointer`); use the
 * same registrations wherever the rows are read back.
 *
 * @throws CheckpointError (operation `createSerializer`) for a malformed entry, two entries with one `name`, one
 * class registered twice, or a type the default format already handles.
 * @example
 * ```ts
 * import { createSerializer, MemoryCheckpointer } from "@graph/checkpoint";
 *
 * const serializer = createSerializer({
 *   classes: [
 *     {
 *       name: "AIMessage",
 *       type: AIMessage,
 *       encode: (m: AIMessage) => ({ content: m.content }),
 *       decode: (v: { content: string }) => new AIMessage(v),
 *     },
 *     {
 *       name: "Error",
 *       type: Error,
 *       encode: (e: Error) => ({ message: e.message }),
 *       decode: (v: { message: string }) => new Error(v.message),
 *     },
 *   ],
 * });
 * const checkpointer = new MemoryCheckpointer({ serializer });
 * ```
 */
export function createSerializer(options: SerializerOptions = {}): Serializer {
  if (typeof options !== "object" || options === null) {
    throw invalid(`createSerializer: options must be an object like { classes: [...] }, got ${String(options)}.`);
  }
  const classes = options.classes ?? [];
  if (!Array.isArray(classes)) {
    throw invalid(
      `createSerializer: classes must be an array of { name, type, encode, decode }, got ${typeof classes}.`,
    );
  }
  const byName = new Map<string, RegisteredClass>();
  const byPrototype = new Map<object, RegisteredClass>();
  classes.forEach((entry: unknown, i) => {
    const registered = checkEntry(entry, i);
    const sameName = byName.get(registered.name);
    if (sameName !== undefined) {
      throw invalid(
        `createSerializer: two classes are registered under the name '${registered.name}' ` +
          `(${sameName.type.name || "anonymous"} and ${registered.type.name || "anonymous"}). ` +
          "Stored rows name their class, so each name must be unique: rename one of them.",
      );
    }
    const prototype = registered.type.prototype as object;
    const sameType = byPrototype.get(prototype);
    if (sameType !== undefined) {
      throw invalid(
        `createSerializer: class ${registered.type.name || "anonymous"} is registered twice ` +
          `(as '${sameType.name}' and '${registered.name}'). Keep one entry.`,
      );
    }
    byName.set(registered.name, registered);
    byPrototype.set(prototype, registered);
  });
  const registry: ClassRegistry = { byName, byPrototype };
  return Object.freeze({
    serialize: (value: unknown): string => encodeToText(value, registry),
    deserialize: (text: string): unknown => decodeFromText(text, registry),
  });
}
