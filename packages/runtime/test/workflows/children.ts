import type { ChildProcess } from "node:child_process";

/** Starts a child process of an adapter's fixture with these arguments (the adapter's test says how). */
export type StartChild = (args: readonly string[]) => ChildProcess;

/** A started child: its process, how it exited (signal or code) and its first message (rejects if it exits first). */
export function child(start: StartChild, args: readonly string[]) {
  const proc = start(args);
  const exit = new Promise<unknown>((resolve) => proc.on("exit", (code, signal) => resolve(signal ?? code)));
  const message = new Promise<unknown>((resolve, reject) => {
    proc.on("message", resolve);
    void exit.then((how) => reject(new Error(`the child exited (${String(how)}) before reporting`)));
  });
  return { proc, exit, message };
}
