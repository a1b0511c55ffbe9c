export { type Cluster, startCluster } from "./cluster";
export { CHAOS_ENV, type ChaosOptions, type ChaosReport, runChaos } from "./run-chaos";
