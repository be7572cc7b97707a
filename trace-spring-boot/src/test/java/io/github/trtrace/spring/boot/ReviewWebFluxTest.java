package io.github.trtrace.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/** A WebFlux application's odd request IDs and error answers, over loopback. */
@SpringBootTest(
    classes = ReviewWebFluxTest.App.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {"spring.main.web-application-type=reactive", "spring.reactor.context-propagation=auto"})
class ReviewWebFluxTest {

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(App.Handlers.class)
  static class App {
    @RestController
    static class Handlers {
      @GetMapping("/id")
      Mono<String> id(ServerWebExchange exchange) {
        return Mono.just(TrtraceWebFilter.request(exchange).requestId());
      }

      @GetMapping("/parent")
      Mono<String> parent(ServerWebExchange exchange) {
        io.github.trtrace.http.TracedRequest r = TrtraceWebFilter.request(exchange);
        return Mono.just(r.traceParent().map(p -> p.traceId()).orElse("none") + " " + r.traceState());
      }

      @GetMapping("/throws")
      Mono<String> throwsUnhandled() {
        return Mono.error(new IllegalStateException("engine failed"));
      }

      @GetMapping("/bad")
      Mono<String> bad() {
        return Mono.error(new ResponseStatusException(HttpStatus.BAD_REQUEST, "bad prompt"));
      }
    }
  }

  @Autowired Environment env;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private HttpResponse<String> get(String path, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + env.getProperty("local.server.port") + path)).timeout(Duration.ofSeconds(20));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void twoCallerIdsAreAmbiguousAndReplacedAsByTheServletFilter() throws Exception {
    HttpResponse<String> r = get("/id", "X-Request-ID", "flux-a", "X-Request-ID", "flux-b");
    String echoed = r.headers().allValues("X-Request-ID").get(0);
    assertThat(echoed).startsWith("req-");
    assertThat(r.body()).isEqualTo(echoed);
  }

  @Test
  void anUnhandledErrorIsAnswered500WithTheCallersId() throws Exception {
    HttpResponse<String> r = get("/throws", "X-Request-ID", "flux-err-1");
    assertThat(r.statusCode()).isEqualTo(500);
    assertThat(r.headers().allValues("X-Request-ID")).containsExactly("flux-err-1");
  }

  @Test
  void aResponseStatusExceptionIsAnswered400WithTheCallersId() throws Exception {
    HttpResponse<String> r = get("/bad", "X-Request-ID", "flux-err-2");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.headers().allValues("X-Request-ID")).containsExactly("flux-err-2");
  }

  @Test
  void aNotFoundIsAnsweredWithTheCallersId() throws Exception {
    HttpResponse<String> r = get("/nothing-here", "X-Request-ID", "flux-404");
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(r.headers().allValues("X-Request-ID")).containsExactly("flux-404");
  }

  private static final String PARENT_A = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  private static final String PARENT_B = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  @Test
  void twoTraceparentHeadersAreIgnoredTogetherAsByTheServletFilter() throws Exception {
    assertThat(get("/parent", "traceparent", PARENT_A).body()).startsWith("4bf92f3577b34da6a3ce929d0e0e4736 ");
    assertThat(get("/parent", "traceparent", PARENT_A, "traceparent", PARENT_B).body()).startsWith("none ");
  }

  @Test
  void severalTracestateHeadersAreCombinedInOrderAsByTheServletFilter() throws Exception {
    HttpResponse<String> r =
        get("/parent", "traceparent", PARENT_A, "tracestate", "congo=t61rcWkgMzE", "tracestate", "rojo=00f067aa0ba902b7");
    assertThat(r.body()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736 congo=t61rcWkgMzE,rojo=00f067aa0ba902b7");
  }
}
