/** Implementation of the trtrace Spring Boot auto-configuration. Not API: may change without notice. */
@NullMarked
package io.github.trtrace.spring.boot.internal;

import org.jspecify.annotations.NullMarked;
