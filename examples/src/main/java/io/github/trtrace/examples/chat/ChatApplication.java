package io.github.trtrace.examples.chat;

import io.github.trtrace.examples.demo.DemoModel;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * An OpenAI-compatible {@code /v1/chat/completions} on the demo's CPU model, traced by trtrace's Spring Boot
 * starter with no tracing code: the tracer, the {@code X-Request-ID} filter, the meters, {@code /actuator/health}
 * and {@code /actuator/trtrace} come from the starter, configured in {@code application.properties}; Boot's
 * tracing (Micrometer on the OpenTelemetry SDK) puts {@code traceId} in the MDC and the request span under its
 * HTTP server span.
 *
 * <pre>{@code
 * java -cp ... io.github.trtrace.examples.chat.ChatApplication
 * curl -N localhost:8080/v1/chat/completions -H 'Authorization: Bearer demo-key' \
 *   -H 'Content-Type: application/json' \
 *   -d '{"messages":[{"role":"user","content":"Why is the sky blue?"}],"stream":true}'
 * }</pre>
 */
@SpringBootApplication
public class ChatApplication {

  /** The model, closed with the context. */
  @Bean(destroyMethod = "close")
  DemoModel demoModel() {
    return DemoModel.cpu();
  }

  public static void main(String[] args) {
    SpringApplication.run(ChatApplication.class, args);
  }
}
