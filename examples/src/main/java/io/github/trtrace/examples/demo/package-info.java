/**
 * The demo inference service, its CPU backend and tokenizer, the load generator and the operator's analysis:
 * the two field cases (slow long inputs, garbled outputs after bidirectional controls) reproduced end to end.
 *
 * <pre>{@code
 * Demo.run(Demo.Options.defaults(), System.out);
 * }</pre>
 */
@NullMarked
package io.github.trtrace.examples.demo;

import org.jspecify.annotations.NullMarked;
