package io.github.trtrace.core.sink;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** Renames a file; replaceable in tests to make a rotation fail. */
@FunctionalInterface
interface Mover {
  void move(Path from, Path to) throws IOException;

  Mover DEFAULT = (from, to) -> Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
}
