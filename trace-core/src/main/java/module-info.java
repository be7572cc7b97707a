/**
 * trtrace core: per-request tracing of LLM inference. Exports the API packages only; the engine
 * lives in {@code io.github.trtrace.core.internal.*} (with the shaded JCTools queue under {@code
 * internal.shaded}), of which only the JSON writer, the rate-limited logger and the tracer factory are exported, to
 * trtrace's own modules; they may change in any release.
 *
 * <p>Compiled for Java 17 at the root of the (multi-release) jar; the Java 25 class under {@code
 * META-INF/versions/25} is in a package of this module and changes nothing here.
 */
@SuppressWarnings("module") // the qualified exports name trtrace modules that are not on the path when this one is built
module io.github.trtrace.core {
  requires transitive org.slf4j; // Slf4jSink's API uses org.slf4j.event.Level
  requires static org.jspecify; // null markers: annotations only, needed neither at run time nor by users

  exports io.github.trtrace.core;
  exports io.github.trtrace.core.context;
  exports io.github.trtrace.core.gpu;
  exports io.github.trtrace.core.redact;
  exports io.github.trtrace.core.sampling;
  exports io.github.trtrace.core.sink;
  exports io.github.trtrace.core.internal.json to
      io.github.trtrace.tensorrt,
      io.github.trtrace.otel;
  exports io.github.trtrace.core.internal.log to
      io.github.trtrace.tensorrt,
      io.github.trtrace.otel;
  exports io.github.trtrace.core.internal.trace to // TracerFactory: their tests build tracers with test clocks
      io.github.trtrace.tensorrt,
      io.github.trtrace.otel;
}
