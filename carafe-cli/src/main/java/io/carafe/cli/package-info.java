/** The {@code carafe} command line: a routing root, shared option mixins, one class per subcommand. */
package io.carafe.cli;
