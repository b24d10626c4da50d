import type { Checkpointer, MemoryCheckpointer } from "@graph/checkpoint";

/**
 * A MemoryCheckpointer can't be reopened, so the runner gets a view of it whose close() is recorded (and any call
 * after it fails, as the real one does) while the test reads the store through the inner instance afterwards.
 */
export function closeRecording(inner: MemoryCheckpointer) {
  const afterClose: string[] = [];
  let closed = false;
  const view = new Proxy(inner, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (key === "close") {
          closed = true;
          return Promise.resolve();
        }
        if (closed) {
          afterClose.push(String(key));
          return Promise.reject(new Error(`${String(key)} was called after the store was closed`));
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as Checkpointer;
  return { view, afterClose, isClosed: () => closed };
}
