package io.github.trtrace.cli;

import io.github.trtrace.cli.internal.BuildDiffCommand;
import io.github.trtrace.cli.internal.ExplainCommand;
import io.github.trtrace.cli.internal.FindCommand;
import io.github.trtrace.cli.internal.GateCommand;
import io.github.trtrace.cli.internal.ReportCommand;
import io.github.trtrace.cli.internal.StatsCommand;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code trtrace} command line over trtrace JSON Lines logs and TensorRT build reports.
 *
 * <pre>{@code
 * trtrace find api-7f3a9c2e41d0 logs/            # one request's timeline, exit 1 if absent
 * trtrace explain api-7f3a9c2e41d0 logs/         # why it was slow: batch neighbours, slot wait, preemption
 * trtrace stats --json logs/inference.log*       # latency, knee, flags, for machines
 * trtrace report --html report.html logs/        # one self-contained HTML file
 * trtrace gate baseline.build.json new.build.json  # non-zero exit on regression
 * }</pre>
 *
 * <p>Exit codes: 0 success; 1 not found ({@code find}, {@code explain}) or regression ({@code build-diff},
 * {@code gate}); 2 bad usage or unreadable input.
 */
@Command(
    name = "trtrace",
    mixinStandardHelpOptions = true,
    versionProvider = TrtraceCli.Version.class,
    description = "Explains slow or garbled LLM requests from trtrace logs, and gates TensorRT builds.",
    footer = {
      "%nRun 'trtrace help COMMAND' or 'trtrace COMMAND --help' for its arguments and options.",
      "Exit codes: 0 success; 1 not found (find, explain, report --request) or regression (build-diff, gate);"
          + " 2 bad usage or unreadable input."},
    subcommands = {
      FindCommand.class,
      ExplainCommand.class,
      StatsCommand.class,
      ReportCommand.class,
      BuildDiffCommand.class,
      GateCommand.class,
      CommandLine.HelpCommand.class
    })
public final class TrtraceCli implements Runnable {
  /** Exit code for "not found" and "regression". */
  public static final int EXIT_FOUND_NOTHING_OR_REGRESSED = 1;
  /** Exit code for bad usage and unreadable input. */
  public static final int EXIT_USAGE = 2;

  private TrtraceCli() {}

  /** Runs the command line and exits with its code. */
  public static void main(String[] args) {
    System.exit(run(new PrintStream(System.out, false, StandardCharsets.UTF_8),
        new PrintStream(System.err, true, StandardCharsets.UTF_8), args));
  }

  /** Runs the command line with the given streams and returns the exit code. */
  public static int run(PrintStream out, PrintStream err, String... args) {
    CommandLine cl = new CommandLine(new TrtraceCli());
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
      err.println("trtrace " + cmd.getCommandName() + ": " + message(e));
      return EXIT_USAGE;
    });
    cl.setExitCodeExceptionMapper(e -> EXIT_USAGE);
    for (CommandLine sub : cl.getSubcommands().values()) {
      // a description is written over several source lines; shown as one paragraph, wrapped to the width,
      // not broken where the source lines end
      CommandLine.Model.UsageMessageSpec usage = sub.getCommandSpec().usageMessage();
      if (usage.description().length > 1) {
        usage.description(String.join(" ", usage.description()));
      }
      Object o = sub.getCommand();
      if (o instanceof io.github.trtrace.cli.internal.Streams) {
        ((io.github.trtrace.cli.internal.Streams) o).streams(out, err);
      }
    }
    int code = cl.execute(args);
    out.flush();
    err.flush();
    return code;
  }

  /** The error's message; a file-system error names its file and what is wrong (its own message is the bare path). */
  static String message(Exception e) {
    if (e instanceof java.nio.file.FileSystemException f && f.getFile() != null) {
      String reason = f.getReason() != null ? f.getReason()
          : e instanceof java.nio.file.NoSuchFileException ? "no such file or directory"
          : e instanceof java.nio.file.AccessDeniedException ? "permission denied"
          : e instanceof java.nio.file.FileAlreadyExistsException ? "already exists"
          : e.getClass().getSimpleName();
      return f.getFile() + (f.getOtherFile() == null ? "" : " -> " + f.getOtherFile()) + ": " + reason;
    }
    return e.getMessage() == null ? e.toString() : e.getMessage();
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(new CommandLine(this), "a command is required: find, explain, stats, report, build-diff or gate");
  }

  /** Version from the jar manifest. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = TrtraceCli.class.getPackage().getImplementationVersion();
      return new String[] {"trtrace " + (v == null ? "(development build)" : v)};
    }
  }
}
