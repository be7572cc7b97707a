package io.github.trtrace.core.sink;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** Opens the log file for appending; replaceable in tests to observe the channel. */
@FunctionalInterface
interface ChannelOpener {
  FileChannel open(Path file) throws IOException;

  /** {@code rw-r-----}: the owner writes, its group (log shippers) reads, nobody else. */
  Set<PosixFilePermission> DEFAULT_PERMISSIONS = PosixFilePermissions.fromString("rw-r-----");

  ChannelOpener DEFAULT = file -> open(file, DEFAULT_PERMISSIONS);

  /** Opens for appending; a file created here gets {@code permissions} (POSIX file systems). */
  static FileChannel open(Path file, @Nullable Set<PosixFilePermission> permissions) throws IOException {
    Set<StandardOpenOption> options =
        EnumSet.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    return openWith(file, options, permissions);
  }

  /** Creates (or truncates) a file for writing with {@code permissions}. */
  static FileChannel create(Path file, @Nullable Set<PosixFilePermission> permissions) throws IOException {
    Set<StandardOpenOption> options =
        EnumSet.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
    return openWith(file, options, permissions);
  }

  private static FileChannel openWith(
      Path file, Set<StandardOpenOption> options, @Nullable Set<PosixFilePermission> permissions)
      throws IOException {
    boolean posix = permissions != null && file.getFileSystem().supportedFileAttributeViews().contains("posix");
    if (!posix) {
      return FileChannel.open(file, options);
    }
    boolean existed = Files.exists(file);
    FileChannel ch = FileChannel.open(file, options, PosixFilePermissions.asFileAttribute(permissions));
    if (!existed) {
      // the umask may have taken bits away (or the configured set is wider than it allows): say exactly
      Files.setPosixFilePermissions(file, permissions);
    }
    return ch;
  }
}
