/** What other packages (the benchmarks) use of the worker: its HTTP server and the stream. */
export { createWorkerServer } from "./health";
export { startJobRunner } from "./jobs/runner";
export { attachStream, STREAM_PATH } from "./stream/server";
