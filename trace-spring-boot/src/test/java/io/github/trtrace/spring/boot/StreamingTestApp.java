package io.github.trtrace.spring.boot;

import io.github.trtrace.core.InferenceRecord;
import io.github.trtrace.core.InferenceTracer;
import io.github.trtrace.core.sink.RecordSink;
import io.github.trtrace.http.ServletTracing;
import io.github.trtrace.http.TracedRequest;
import io.github.trtrace.testing.InMemorySink;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/** A servlet application whose answers are made of tokens produced at a fixed pace. */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(StreamingTestApp.Completions.class)
public class StreamingTestApp {
  static final long FIRST_TOKEN_MS = 150;
  static final long TOKEN_MS = 20;

  @Bean
  InMemorySink memorySink() {
    return InMemorySink.create();
  }

  @Bean
  SwitchableSink switchableSink() {
    return new SwitchableSink();
  }

  /** A sink that fails while switched off. */
  static final class SwitchableSink implements RecordSink {
    volatile boolean failing;

    @Override
    public String name() {
      return "switchable";
    }

    @Override
    public void write(List<InferenceRecord> batch) throws IOException {
      if (failing) {
        throw new IOException("disk unplugged");
      }
    }
  }

  @RestController
  static class Completions {
    private static final Logger log = LoggerFactory.getLogger(Completions.class);
    private final InferenceTracer tracer;
    private final ExecutorService pool = Executors.newCachedThreadPool();

    Completions(InferenceTracer tracer) {
      this.tracer = tracer;
    }

    @GetMapping("/complete")
    String complete(HttpServletRequest request) throws InterruptedException {
      log.info("answering");
      TracedRequest r = ServletTracing.request(request);
      return r.call(tracer, "test-model", t -> {
        TimeUnit.MILLISECONDS.sleep(5);
        t.outputTokens(1);
        return "done " + t.requestId();
      });
    }

    @GetMapping(path = "/stream", produces = "text/event-stream")
    SseEmitter stream(HttpServletRequest request, @RequestParam(name = "tokens", defaultValue = "5") int tokens) {
      SseEmitter emitter = new SseEmitter(0L);
      TracedStream stream = TracedStream.of(ServletTracing.request(request).startTrace(tracer, "test-model"));
      pool.execute(() -> {
        try {
          TimeUnit.MILLISECONDS.sleep(FIRST_TOKEN_MS);
          for (int i = 0; i < tokens; i++) {
            if (i > 0) {
              TimeUnit.MILLISECONDS.sleep(TOKEN_MS);
            }
            emitter.send(SseEmitter.event().data("tok" + i));
            stream.sent(1);
          }
          emitter.complete();
          stream.complete();
        } catch (IOException | IllegalStateException clientGone) {
          stream.cancelled();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          stream.failed(e);
        }
      });
      return emitter;
    }
  }
}
