/**
 * JVM settings for every DynamoDB Local the tests start (the shared in-memory engine and those a
 * test's `npm start` spawns, which inherit the environment). The engine under test is short-lived
 * and shares two cores with the test workers: the client compiler alone (no C2) and the serial
 * collector halve its CPU time over a run, and the answers do not change. The local service and
 * the bench keep the JVM's defaults, tuned for a long-running engine.
 */
export const TEST_ENGINE_JVM_OPTIONS = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';
