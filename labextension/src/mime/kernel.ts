/**
 * What a notebook's card outputs need to know of its kernel: whether the kernel holds a
 * card's widget model (so no widget view is drawn for a model a new kernel never had, which
 * the widget manager logs as "widget model not found"), and the moment the kernel goes.
 */

import type { ISessionContext } from "@jupyterlab/apputils";
import type { Kernel } from "@jupyterlab/services";

/** The comm target of ipywidgets: each widget model is one comm, its id the model id. */
const WIDGET_COMM_TARGET = "jupyter.widget";

interface Asked {
  /** When the question went to the kernel (performance.now()). */
  at: number;
  comms: Promise<Set<string>>;
}

const asked = new WeakMap<Kernel.IKernelConnection, Asked>();

async function askComms(kernel: Kernel.IKernelConnection): Promise<Set<string>> {
  const reply = await kernel.requestCommInfo({ target_name: WIDGET_COMM_TARGET });
  const content = reply.content;
  return new Set(content.status === "ok" ? Object.keys(content.comms) : []);
}

/**
 * True when the notebook's kernel holds the widget model `modelId`. One question answers
 * every output drawn before it was asked (a notebook opened with many cards asks once); an
 * output drawn later asks again, since its widget may be newer than the answer.
 */
export async function kernelHoldsModel(session: ISessionContext, modelId: string, since: number): Promise<boolean> {
  const kernel = session.session?.kernel;
  if (!kernel || kernel.isDisposed) return false;
  let question = asked.get(kernel);
  if (!question || question.at < since) {
    question = { at: performance.now(), comms: askComms(kernel) };
    asked.set(kernel, question);
  }
  try {
    return (await question.comms).has(modelId);
  } catch {
    if (asked.get(kernel) === question) asked.delete(kernel);
    return false; // no answer (a kernel restarting, or dead): the saved card stays
  }
}

/** The kernel statuses after which the widgets of the kernel that drew a card are gone. */
const GONE: ReadonlySet<string> = new Set(["restarting", "autorestarting", "dead", "terminating"]);

/**
 * Calls `gone` once, when the notebook's kernel restarts, dies, is shut down or replaced;
 * returns a function that stops watching.
 */
export function onKernelGone(session: ISessionContext, gone: () => void): () => void {
  let done = false;
  const stop = () => {
    session.statusChanged.disconnect(onStatus);
    session.kernelChanged.disconnect(fire);
    session.sessionChanged.disconnect(fire);
  };
  const fire = () => {
    if (done) return;
    done = true;
    stop();
    gone();
  };
  const onStatus = (_: ISessionContext, status: string) => {
    if (GONE.has(status)) fire();
  };
  session.statusChanged.connect(onStatus);
  session.kernelChanged.connect(fire);
  session.sessionChanged.connect(fire);
  return () => {
    done = true;
    stop();
  };
}
