package io.github.trtrace.examples.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.trtrace.core.context.RequestIds;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Open-loop load over real HTTP (loopback, {@code java.net.http}): requests are sent at planned times whether
 * or not earlier ones were answered, as independent users do. The plan: Poisson arrivals at a rate below
 * capacity, one burst well above it in the middle (the same mix of prompts), then Poisson again; prompts
 * mostly short, some long
 * (1,024+ tokens), a few with bidirectional controls (balanced or not), a few hostile {@code X-Request-ID}s.
 * Three times during the Poisson phases a few chats that answer at length ({@value #EPISODE_CHATS} short prompts,
 * {@value #EPISODE_TOKENS} tokens each) are followed {@value #EPISODE_GAP_MS} ms later by
 * {@value #EPISODE_DOCUMENTS} long documents (about 2,000 tokens): long prompts arriving while others decode,
 * the third field case (the chats' TPOT rises while the documents' prefill shares their steps).
 * Request IDs are {@code api-demo-0000} style: fixed width, so no ID is a prefix of another and
 * {@code grep api-demo-0042} finds one request.
 */
final class LoadGenerator {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** What a request is, for the analysis to compare against the records. */
  enum Kind { SHORT, MEDIUM, LONG }

  /** Prompt lengths: as in production (mostly short), or spread evenly over 8..2,400 tokens (fewer requests). */
  enum Mix { PRODUCTION, EVEN }

  /** One planned request. */
  record Planned(int index, String header, String prompt, int words, Kind kind, boolean burst, String bidi,
      long atNanos, int maxTokens) {
    boolean hostileHeader() {
      return !RequestIds.isValid(header);
    }
  }

  /** What came back. */
  record Outcome(Planned planned, int status, String echoedId, double clientMs, String body) {}

  /** The whole plan and where the burst sits in it. */
  record Plan(List<Planned> requests, long burstStartNanos, long burstEndNanos, double rate) {}

  static final String[] HOSTILE = {
    "x".repeat(10 * 1024),
    "evil%0D%0AX-Injected:%20yes",
    new String("\u202Eapi-demo-evil".getBytes(java.nio.charset.StandardCharsets.UTF_8),
        java.nio.charset.StandardCharsets.ISO_8859_1),
    "<script>alert(1)</script>",
  };

  static final int EPISODES = 3;
  static final int EPISODE_CHATS = 4;
  static final int EPISODE_DOCUMENTS = 2;
  static final int EPISODE_TOKENS = 64;
  static final int EPISODE_GAP_MS = 60;

  private LoadGenerator() {}

  /**
   * A plan of {@code poisson} Poisson arrivals at {@code rate} per second with {@code burst} more arriving
   * within {@code burstWindow} after the first half. Deterministic for a seed.
   */
  static Plan plan(long seed, int poisson, double rate, int burst, Duration burstWindow, int maxTokens) {
    return plan(seed, poisson, rate, burst, burstWindow, maxTokens, Mix.PRODUCTION);
  }

  static Plan plan(long seed, int poisson, double rate, int burst, Duration burstWindow, int maxTokens, Mix mix) {
    SplittableRandom r = new SplittableRandom(seed);
    List<Long> times = new ArrayList<>();
    double t = 0.2;
    int half = poisson / 2;
    for (int i = 0; i < half; i++) {
      t += -Math.log(1 - r.nextDouble()) / rate;
      times.add(Math.round(t * 1e9));
    }
    long burstStart = Math.round((t + 0.5) * 1e9);
    long window = burstWindow.toNanos();
    List<Long> burstTimes = new ArrayList<>();
    for (int i = 0; i < burst; i++) {
      burstTimes.add(burstStart + window * i / Math.max(1, burst));
    }
    t = (burstStart + window) / 1e9 + 0.5;
    List<Long> later = new ArrayList<>();
    for (int i = half; i < poisson; i++) {
      t += -Math.log(1 - r.nextDouble()) / rate;
      later.add(Math.round(t * 1e9));
    }
    List<Planned> out = new ArrayList<>();
    int index = 0;
    for (List<Long> phase : List.of(times, burstTimes, later)) {
      boolean inBurst = phase == burstTimes;
      for (long at : phase) {
        out.add(request(r, index++, at, inBurst, maxTokens, mix));
      }
    }
    if (poisson >= 40) { // long prompts arriving while others decode: in each Poisson phase, away from the burst
      long end = later.isEmpty() ? burstStart : later.get(later.size() - 1);
      long[] at = {burstStart / 3, burstStart * 2 / 3, (burstStart + window + end) / 2};
      for (long start : Arrays.copyOf(at, EPISODES)) {
        for (int i = 0; i < EPISODE_CHATS; i++) {
          out.add(episode(r, index++, start + i * 2_000_000L, 24 + r.nextInt(60), EPISODE_TOKENS));
        }
        for (int i = 0; i < EPISODE_DOCUMENTS; i++) {
          out.add(episode(r, index++, start + EPISODE_GAP_MS * 1_000_000L + i * 5_000_000L, 1900 + r.nextInt(300),
              maxTokens));
        }
      }
    }
    out.sort(java.util.Comparator.comparingLong(Planned::atNanos));
    return new Plan(out, burstStart, burstStart + window, rate);
  }

  private static Planned episode(SplittableRandom r, int index, long at, int words, int maxTokens) {
    StringBuilder prompt = new StringBuilder(words * 7);
    for (int i = 0; i < words; i++) {
      prompt.append(i > 0 ? " " : "").append(Words.VOCABULARY.get(r.nextInt(Words.VOCABULARY.size())));
    }
    Kind kind = words < 128 ? Kind.SHORT : words < 1024 ? Kind.MEDIUM : Kind.LONG;
    return new Planned(index, String.format("api-demo-%04d", index), prompt.toString(), words, kind, false, "", at,
        maxTokens);
  }

  private static Planned request(SplittableRandom r, int index, long at, boolean burst, int maxTokens, Mix mix) {
    double u = r.nextDouble();
    int words;
    if (mix == Mix.EVEN) {
      words = 8 + (int) (u * 2400);
    } else { // most prompts are short; some medium; about one in six is a long document (1,024+ tokens)
      words = u < 0.6 ? 8 + r.nextInt(120) : u < 0.82 ? 128 + r.nextInt(896) : 1024 + r.nextInt(1200);
    }
    Kind kind = words < 128 ? Kind.SHORT : words < 1024 ? Kind.MEDIUM : Kind.LONG;
    String bidi = "";
    StringBuilder prompt = new StringBuilder(words * 7);
    List<String> vocab = Words.VOCABULARY;
    for (int i = 0; i < words; i++) {
      if (i > 0) {
        prompt.append(' ');
      }
      prompt.append(vocab.get(r.nextInt(vocab.size())));
    }
    if (!burst && (kind == Kind.SHORT || mix == Mix.EVEN) && r.nextDouble() < 0.09) {
      // Text pasted from a right-to-left context: an override that is closed, or one that is not.
      int cut = prompt.indexOf(" ", prompt.length() / 2);
      boolean balanced = r.nextBoolean();
      char push = r.nextBoolean() ? '\u202E' : '\u2067';
      String insert = " " + push + "olleh dlrow" + (balanced ? (push == '\u202E' ? "\u202C" : "\u2069") : "");
      prompt.insert(Math.max(0, cut), insert);
      bidi = balanced ? "balanced" : "unbalanced";
    }
    String header = String.format("api-demo-%04d", index);
    if (!burst && r.nextDouble() < 0.02) {
      header = HOSTILE[r.nextInt(HOSTILE.length)];
    }
    return new Planned(index, header, prompt.toString(), words, kind, burst, bidi, at, maxTokens);
  }

  /** Sends every request at its planned time (relative to now) and waits for every answer. */
  static List<Outcome> run(URI service, Plan plan, String model) {
    HttpClient client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10))
        .executor(Executors.newFixedThreadPool(4))
        .build();
    ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor();
    URI uri = service.resolve(DemoService.PATH);
    long start = System.nanoTime();
    List<CompletableFuture<Outcome>> inFlight = new ArrayList<>();
    try {
      for (Planned p : plan.requests()) {
        CompletableFuture<Outcome> f = new CompletableFuture<>();
        inFlight.add(f);
        long delay = p.atNanos() - (System.nanoTime() - start);
        clock.schedule(() -> send(client, uri, p, model).whenComplete((o, e) -> {
          if (e != null) {
            f.complete(new Outcome(p, -1, null, -1, e.toString()));
          } else {
            f.complete(o);
          }
        }), Math.max(0, delay), TimeUnit.NANOSECONDS);
      }
      List<Outcome> out = new ArrayList<>();
      for (CompletableFuture<Outcome> f : inFlight) {
        out.add(f.orTimeout(120, TimeUnit.SECONDS).join());
      }
      return out;
    } finally {
      clock.shutdownNow();
      client.executor().ifPresent(e -> ((java.util.concurrent.ExecutorService) e).shutdownNow());
    }
  }

  private static CompletableFuture<Outcome> send(HttpClient client, URI uri, Planned p, String model) {
    byte[] body;
    try {
      body = JSON.writeValueAsBytes(Map.of("prompt", p.prompt(), "max_tokens", p.maxTokens(),
          "model", model));
    } catch (java.io.IOException e) {
      return CompletableFuture.failedFuture(e);
    }
    HttpRequest request = HttpRequest.newBuilder(uri)
        .timeout(Duration.ofSeconds(60))
        .header("Content-Type", "application/json")
        .header(RequestIds.HEADER, p.header())
        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
        .build();
    long sent = System.nanoTime();
    return client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
        .thenApply(resp -> new Outcome(p, resp.statusCode(),
            resp.headers().firstValue(RequestIds.HEADER).orElse(null), (System.nanoTime() - sent) / 1e6,
            resp.body()));
  }
}
