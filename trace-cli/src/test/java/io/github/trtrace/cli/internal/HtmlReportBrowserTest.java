package io.github.trtrace.cli.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTML report in real headless Chromium (Debian {@code chromium}): no errors while loading (a
 * probe script records error events, CSP violations and console.error calls into the DOM), the charts
 * and the knee marker are in the DOM, log text cannot inject markup, and a screenshot is written to
 * {@code target/trtrace-report.png} for people to look at and checked for being non-blank. Installs
 * Chromium with apt-get when missing, as root with {@code CI=true}; otherwise skips, saying so.
 */
class HtmlReportBrowserTest {
  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final String HOSTILE_MODEL = "<img src=x onerror=\"document.title='pwned'\">";
  static final Path SCREENSHOT = Path.of("target", "trtrace-report.png");

  @TempDir static Path dir;
  static Path report;

  @BeforeAll
  static void report() throws Exception {
    ensureChromium();
    Path log = dir.resolve("inference.log");
    new SyntheticLog(21, true).write(log, 6000);
    SyntheticLog.append(log, "{\"timestamp\":\"2026-12-01T08:10:00.000000Z\",\"request_id\":\"api-evil-1\",\"model_name\":"
        + new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(HOSTILE_MODEL)
        + ",\"status\":\"rejected\",\"latency_ms\":0.4}\n");
    report = Path.of("target", "trtrace-report.html").toAbsolutePath();
    Cli r = Cli.run("report", "--html", report.toString(), log.toString());
    assertThat(r.code()).as(r.err()).isZero();
  }

  private static void ensureChromium() throws Exception {
    if (Files.isExecutable(CHROMIUM)) {
      return;
    }
    boolean root = "root".equals(System.getProperty("user.name"));
    if (root && "true".equals(System.getenv("CI"))) {
      run(List.of("apt-get", "update"), 300);
      run(List.of("apt-get", "install", "-y", "chromium", "chromium-driver"), 600);
    }
    if (!Files.isExecutable(CHROMIUM)) {
      String why = "SKIPPED: " + CHROMIUM + " is missing; install Debian chromium (apt-get install -y chromium"
          + " chromium-driver) or run as root with CI=true to let this test install it";
      System.err.println("HtmlReportBrowserTest " + why);
      Assumptions.abort(why);
    }
  }

  private static String run(List<String> cmd, int seconds) throws Exception {
    Path out = Files.createTempFile(dir, "proc", ".out");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(false).redirectOutput(out.toFile())
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("timed out: " + cmd);
    }
    return Files.readString(out, StandardCharsets.UTF_8);
  }

  private static List<String> chromium(String... extra) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-background-networking", "--disable-component-update", "--no-first-run",
        "--user-data-dir=" + Files.createTempDirectory(dir, "profile")));
    cmd.addAll(List.of(extra));
    return cmd;
  }

  /** A copy of the page with the probe first in head; the CSP lets inline script run for it only. */
  private static Path probed(String page, String extraScript) throws IOException {
    String probe = "<script>(function(){var errs=[];"
        + "window.addEventListener('error',function(e){errs.push('error: '+(e.message||(e.target&&e.target.outerHTML)||'?'))},true);"
        + "document.addEventListener('securitypolicyviolation',function(e){errs.push('csp: '+e.violatedDirective+' '+e.blockedURI)});"
        + "var ce=console.error;console.error=function(){errs.push('console.error: '+Array.prototype.join.call(arguments,' '));ce.apply(console,arguments)};"
        + "window.addEventListener('load',function(){setTimeout(function(){var d=document.createElement('pre');d.id='probe-result';"
        + "d.setAttribute('data-errors',JSON.stringify(errs));document.body.appendChild(d)},200)});})();</script>";
    assertThat(page).contains("default-src 'none'");
    String html = page.replace("default-src 'none'", "default-src 'none'; script-src 'unsafe-inline'")
        .replaceFirst("<head>", "<head>" + probe.replace("$", "\\$")) .replace("</body>", extraScript + "</body>");
    Path p = Files.createTempFile(dir, "probed", ".html");
    Files.writeString(p, html, StandardCharsets.UTF_8);
    return p;
  }

  private static String dumpDom(Path page) throws Exception {
    return run(chromium("--virtual-time-budget=3000", "--dump-dom", page.toUri().toString()), 90);
  }

  private static String errorsOf(String dom) {
    int i = dom.indexOf("id=\"probe-result\"");
    assertThat(i).as("probe ran: %s", dom.length() > 400 ? dom.substring(dom.length() - 400) : dom).isPositive();
    int a = dom.indexOf("data-errors=\"", i) + "data-errors=\"".length();
    return dom.substring(a, dom.indexOf('"', a));
  }

  @Test
  void loadsWithoutErrorsWithChartsKneeMarkerAndEscapedLogText() throws Exception {
    String page = Files.readString(report, StandardCharsets.UTF_8);
    String dom = dumpDom(probed(page, ""));
    assertThat(errorsOf(dom)).isEqualTo("[]");
    assertThat(dom).contains("id=\"chart-scatter\"", "id=\"chart-histogram\"", "id=\"chart-stages\"", "id=\"chart-time\"",
        "id=\"knee-marker\"", "id=\"knee-fit\"", "id=\"finding-slow\"", "id=\"finding-garbled\"", "id=\"table-slow\"",
        "id=\"table-errors\"", "id=\"table-flags\"");
    assertThat(dom).contains("Slow = long inputs", "Garbled = bidi_control inputs", "knee ");
    assertThat(dom).contains("&lt;img src=x").doesNotContain(HOSTILE_MODEL).doesNotContain("pwned</title>");
    // knee marker near the generator's knee
    int k = dom.indexOf("data-tokens=\"", dom.indexOf("id=\"knee-marker\"")) + "data-tokens=\"".length();
    assertThat(Double.parseDouble(dom.substring(k, dom.indexOf('"', k)))).isBetween(900.0, 1150.0);
  }

  /**
   * A report over the real tracer's batched logs shows the victim's launches on a timeline: its lane and
   * its neighbours' lanes, one red step per decode step that carried another request's prefill, the
   * culprit's prefill in orange, the explain sentence above it; no errors while loading.
   */
  @Test
  void showsOneRequestsLaunchesOnATimelineWithItsNeighbours() throws Exception {
    Path logs = Files.createDirectories(dir.resolve("batched"));
    BatchedLog log = new BatchedLog(logs, 0);
    Path html = Path.of("target", "trtrace-report-request.html").toAbsolutePath();
    Cli r = Cli.run("report", "--html", html.toString(), "--request", BatchedLog.VICTIM, logs.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("request req-victim: its launches on a timeline");
    String dom = dumpDom(probed(Files.readString(html, StandardCharsets.UTF_8), ""));
    assertThat(errorsOf(dom)).isEqualTo("[]");
    assertThat(dom).contains("id=\"request-timeline\"", "id=\"request-why\"", "id=\"finding-batching\"",
        ">req-victim</text>", ">req-long-1</text>", ">req-long-2</text>", "req-victim was slow: TPOT ");
    assertThat(count(dom, "class=\"step shared\"")).isEqualTo(log.victimDecodeStepsWithPrefill);
    assertThat(count(dom, "class=\"step ")).isEqualTo(log.victimLaunches);
    int[] long1 = log.victimNeighbours.get(BatchedLog.LONG_1);
    assertThat(count(dom, "req-long-1 in launch ", ": " + BatchedLog.CHUNK + " prefill tokens")).isEqualTo(long1[0]);
    Path shot = Path.of("target", "trtrace-report-request.png").toAbsolutePath();
    run(chromium("--hide-scrollbars", "--window-size=1300,1100", "--screenshot=" + shot, html.toUri().toString()), 90);
    assertThat(shot).exists();
  }

  private static int count(String s, String needle) {
    return count(s, needle, "");
  }

  /** Occurrences of {@code needle} followed, before the next tag, by {@code then}. */
  private static int count(String s, String needle, String then) {
    int n = 0;
    for (int i = s.indexOf(needle); i >= 0; i = s.indexOf(needle, i + 1)) {
      int end = s.indexOf('<', i);
      if (s.substring(i, end < 0 ? s.length() : end).contains(then)) {
        n++;
      }
    }
    return n;
  }

  @Test
  void theProbeReportsAScriptErrorWhenThereIsOne() throws Exception {
    String page = Files.readString(report, StandardCharsets.UTF_8);
    String dom = dumpDom(probed(page, "<script>noSuchFunction()</script>"));
    assertThat(errorsOf(dom)).contains("noSuchFunction");
  }

  @Test
  void screenshotIsWrittenAndNotBlank() throws Exception {
    Files.deleteIfExists(SCREENSHOT);
    run(chromium("--hide-scrollbars", "--window-size=1300,2300", "--screenshot=" + SCREENSHOT.toAbsolutePath(),
        report.toUri().toString()), 90);
    File png = SCREENSHOT.toFile();
    assertThat(png).exists();
    BufferedImage img = ImageIO.read(png);
    assertThat(img.getWidth()).isEqualTo(1300);
    Set<Integer> colours = new HashSet<>();
    long nonWhite = 0;
    for (int y = 0; y < img.getHeight(); y += 2) {
      for (int x = 0; x < img.getWidth(); x += 2) {
        int rgb = img.getRGB(x, y) & 0xFFFFFF;
        colours.add(rgb);
        if (rgb != 0xFFFFFF) {
          nonWhite++;
        }
      }
    }
    long sampled = (long) ((img.getHeight() + 1) / 2) * ((img.getWidth() + 1) / 2);
    assertThat(colours.size()).as("distinct colours").isGreaterThan(50);
    assertThat((double) nonWhite / sampled).as("non-white share").isGreaterThan(0.05);
  }
}
