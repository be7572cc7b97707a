/**
 * The demo inference service, its CPU backend and tokenizer, the load generator and the operator's analysis:
 * the three field cases (slow long inputs, garbled outputs after bidirectional controls, decode slowed by
 * long prompts arriving beside it under continuous batching) reproduced end to end.
 *
 * <pre>{@code
 * Demo.run(Demo.Options.defaults(), System.out);
 * }</pre>
 */
@NullMarked
package io.github.trtrace.examples.demo;

import org.jspecify.annotations.NullMarked;
