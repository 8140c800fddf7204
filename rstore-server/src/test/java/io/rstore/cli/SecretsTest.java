package io.rstore.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SecretsTest {
    @TempDir
    Path dir;

    private Path secret(String mode) throws IOException {
        Path file = dir.resolve("secret-" + mode);
        Files.writeString(file, "s3cret\nignored\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
        return file;
    }

    @Test
    void shouldReadAPrivateSecretFile() throws IOException {
        assertEquals("s3cret", Secrets.from(secret("rw-------")));
        assertEquals("s3cret", Secrets.from(secret("r--------")));
    }

    /** A world-readable secret file (0644) was accepted silently. */
    @Test
    void shouldRefuseASecretFileOthersCanRead() throws IOException {
        for (String mode : new String[] {"rw-r--r--", "rw-r-----", "rw----r--", "rw-rw----"}) {
            Path file = secret(mode);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Secrets.from(file));
            assertTrue(e.getMessage().contains("is open to group or others (" + mode + ")"), e.getMessage());
            assertTrue(e.getMessage().contains("chmod 600 " + file), e.getMessage());
        }
    }
}
