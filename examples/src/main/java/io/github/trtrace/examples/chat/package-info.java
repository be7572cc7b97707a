/**
 * The Spring Boot sample: an OpenAI-compatible chat completions endpoint (whole or streamed as server-sent
 * events) on the demo's CPU model, traced through {@code trace-spring-boot-starter} and
 * {@code application.properties} only.
 *
 * <pre>{@code
 * SpringApplication.run(ChatApplication.class, args);
 * }</pre>
 */
@NullMarked
package io.github.trtrace.examples.chat;

import org.jspecify.annotations.NullMarked;
