package io.github.trtrace.tensorrt.internal.cupti;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;

/** Warns once per key (the recorder's failures repeat per launch or per buffer: said once each). */
final class Once {
  private final Logger log;
  private final Map<String, Boolean> said = new ConcurrentHashMap<>();

  Once(Logger log) {
    this.log = log;
  }

  void warn(String key, String format, Object... args) {
    if (said.putIfAbsent(key, Boolean.TRUE) == null) {
      log.warn(format, args);
    }
  }
}
