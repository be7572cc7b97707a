package io.github.trtrace.examples.chat;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.access.intercept.AuthorizationFilter;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * {@code Authorization: Bearer <chat.api-key>}, as OpenAI-compatible servers ask, on everything but
 * {@code /actuator/health}. A request without the key is answered 401 by Spring Security, after the starter's
 * filter (which runs before Spring Security's): the answer still carries its {@code X-Request-ID}, and the
 * line logged here has {@code request_id} and Boot's {@code traceId} in its MDC.
 */
@Configuration(proxyBeanMethods = false)
class ApiKeySecurity {
  private static final Logger log = LoggerFactory.getLogger(ApiKeySecurity.class);

  @Bean
  SecurityFilterChain api(HttpSecurity http, @Value("${chat.api-key}") String apiKey) throws Exception {
    if (apiKey.isBlank()) {
      throw new IllegalArgumentException("chat.api-key: must not be blank");
    }
    return http
        .csrf(AbstractHttpConfigurer::disable)
        .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
        .authorizeHttpRequests(a -> a.requestMatchers("/actuator/health", "/actuator/health/**").permitAll()
            .anyRequest().authenticated())
        .addFilterBefore(new BearerKeyFilter(apiKey), AuthorizationFilter.class)
        .exceptionHandling(e -> e.authenticationEntryPoint(rejected()))
        .build();
  }

  /** 401 in OpenAI's error format, logged with the request's ID and trace. */
  private static AuthenticationEntryPoint rejected() {
    byte[] body = ("{\"error\":{\"message\":\"a valid API key is required (Authorization: Bearer ...)\","
        + "\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}").getBytes(StandardCharsets.UTF_8);
    return (request, response, e) -> {
      log.warn("rejected {} {}: no valid API key", request.getMethod(), request.getRequestURI());
      response.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
      response.setHeader("WWW-Authenticate", "Bearer");
      response.setContentType("application/json");
      response.setContentLength(body.length);
      response.getOutputStream().write(body);
    };
  }

  /**
   * Authenticates a request carrying the key. Not a bean (Boot would register it as a servlet filter too);
   * it also runs on async and error dispatches, which Spring Security authorizes as well.
   */
  static final class BearerKeyFilter extends OncePerRequestFilter {
    private final byte[] expected;

    BearerKeyFilter(String apiKey) {
      this.expected = ("Bearer " + apiKey).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
        throws ServletException, IOException {
      String header = request.getHeader("Authorization");
      if (header != null && MessageDigest.isEqual(expected, header.getBytes(StandardCharsets.UTF_8))) {
        SecurityContextHolder.getContext().setAuthentication(
            UsernamePasswordAuthenticationToken.authenticated("api-client", null, AuthorityUtils.NO_AUTHORITIES));
      }
      chain.doFilter(request, response);
    }

    @Override
    protected boolean shouldNotFilterAsyncDispatch() {
      return false;
    }

    @Override
    protected boolean shouldNotFilterErrorDispatch() {
      return false;
    }
  }
}
