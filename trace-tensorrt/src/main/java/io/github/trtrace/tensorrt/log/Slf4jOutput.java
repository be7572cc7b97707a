package io.github.trtrace.tensorrt.log;

import io.github.trtrace.tensorrt.model.log.TrtSeverity;
import org.slf4j.Logger;
import org.slf4j.event.Level;

/** {@link TrtLogPipeline}'s default output: the formatted line to an SLF4J logger, at the severity's level. */
final class Slf4jOutput implements TrtLogPipeline.Output {
  private final Logger logger;

  Slf4jOutput(Logger logger) {
    this.logger = logger;
  }

  /** The SLF4J level of a TensorRT severity (VERBOSE: DEBUG). */
  static Level level(TrtSeverity s) {
    switch (s) {
      case INTERNAL_ERROR:
      case ERROR:
        return Level.ERROR;
      case WARNING:
        return Level.WARN;
      case INFO:
        return Level.INFO;
      default:
        return Level.DEBUG;
    }
  }

  @Override
  public void emit(Level level, String text) {
    if (logger.isEnabledForLevel(level)) {
      logger.atLevel(level).log(text);
    }
  }

  @Override
  public boolean isEnabled(Level level) {
    return logger.isEnabledForLevel(level);
  }
}
