package io.carafe.datasets;

import io.carafe.progress.Progress;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.zip.GZIPInputStream;

/**
 * Where dataset files live and how they get there: {@code $CARAFE_DATA_DIR} (default
 * {@code $XDG_CACHE_HOME/carafe/datasets}, else {@code $HOME/.cache/carafe/datasets}), then
 * a {@code shared/datasets/snap} folder beside or above the installation (bin/ passes it
 * as {@code rstore.home}) or the working directory; otherwise a download from the
 * catalog's URL.
 */
public final class Datasets {
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration DOWNLOAD_TIMEOUT = Duration.ofHours(2);

    private Datasets() {
    }

    /** Where downloads go. */
    public static Path dataDir() {
        return configuredOrCache("CARAFE_DATA_DIR", "datasets");
    }

    /** Where imported graph files (the import cache) go. */
    public static Path cacheDir() {
        return configuredOrCache("CARAFE_CACHE_DIR", "graphs");
    }

    /** Where Pregel jobs write their checkpoints by default (a directory per job, removed when it ends). */
    public static Path checkpointDir() {
        return configuredOrCache("CARAFE_CHECKPOINT_DIR", "checkpoints");
    }

    private static Path configuredOrCache(String variable, String folder) {
        String configured = System.getenv(variable);
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        if (xdg != null && !xdg.isBlank()) {
            return Path.of(xdg, "carafe", folder);
        }
        // $HOME first: the JVM's user.home comes from the password database and ignores it
        String home = System.getenv("HOME");
        return Path.of(home != null && !home.isBlank() ? home : System.getProperty("user.home"), ".cache", "carafe", folder);
    }

    /**
     * The nearest {@code shared/datasets} folder in the installation's directory or one of
     * its parents, else in the working directory or one of its parents: where a command
     * runs from does not matter.
     */
    public static Optional<Path> sharedDir() {
        String home = System.getProperty("rstore.home");
        Optional<Path> installed = home == null ? Optional.empty() : sharedAbove(Path.of(home).toAbsolutePath());
        return installed.isPresent() ? installed : sharedAbove(Path.of("").toAbsolutePath());
    }

    private static Optional<Path> sharedAbove(Path start) {
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("shared").resolve("datasets");
            if (Files.isDirectory(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** The folders searched for a catalog file, in order. */
    public static List<Path> searchDirs() {
        List<Path> dirs = new ArrayList<>();
        dirs.add(dataDir());
        sharedDir().ifPresent(shared -> dirs.add(shared.resolve("snap")));
        return dirs;
    }

    /** The file of a catalog dataset if it is on this machine. */
    public static Optional<Path> findLocal(Dataset dataset) {
        for (Path dir : searchDirs()) {
            Path candidate = dir.resolve(dataset.file());
            if (Files.isRegularFile(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** The file of a catalog dataset: found locally, or downloaded (with progress and checksum). */
    public static Path fetch(Dataset dataset, PrintStream progress) {
        if (dataset.generated()) {
            throw new IllegalArgumentException(dataset.name() + " is generated, not downloaded: run carafe datasets generate " + dataset.name());
        }
        Optional<Path> local = findLocal(dataset);
        if (local.isPresent()) {
            return local.get();
        }
        Path target = dataDir().resolve(dataset.file());
        try {
            download(URI.create(dataset.url()), target, dataset.sha256(), progress);
            return target;
        } catch (IOException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new DatasetUnavailableException("dataset '" + dataset.name() + "' is not on this machine and could not be downloaded from "
                    + dataset.url() + " (" + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ").\n"
                    + "  Download it where there is a network and put it at " + target + ",\n"
                    + "  or give the graph as a path, /path/to/" + dataset.file() + ", or use a generated graph (DatasetCatalog.load() lists them).", e);
        }
    }

    /**
     * Downloads {@code url} to {@code target}. A {@code .gz} download for a target that is
     * not {@code .gz} (SNAP serves wiki-Vote.txt compressed; the catalog names, and
     * checksums, the uncompressed file, as it is kept here and in shared/datasets) is
     * decompressed on the way: the file written and the checksum are both of the
     * uncompressed bytes.
     */
    static void download(URI url, Path target, String sha256, PrintStream progress) throws IOException, InterruptedException {
        Files.createDirectories(target.getParent());
        Path partial = target.resolveSibling(target.getFileName() + ".part");
        HttpClient client = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).followRedirects(HttpClient.Redirect.NORMAL).build();
        HttpRequest request = HttpRequest.newBuilder(url).timeout(DOWNLOAD_TIMEOUT).GET().build();
        progress.println("downloading " + url + " to " + target);
        HttpResponse<InputStream> response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        if (response.statusCode() != 200) {
            throw new IOException("HTTP " + response.statusCode());
        }
        long total = response.headers().firstValueAsLong("content-length").orElse(-1);
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        boolean gunzip = url.getPath().endsWith(".gz") && !target.getFileName().toString().endsWith(".gz");
        try (InputStream body = response.body();
             InputStream in = gunzip ? new GZIPInputStream(body, 1 << 16) : body;
             OutputStream out = Files.newOutputStream(partial)) {
            byte[] buf = new byte[1 << 20];
            long done = 0;
            int n;
            // a .gz unpacked on the way has no known total: the bar counts megabytes
            try (Progress bar = Progress.start(progress, "downloading " + target.getFileName(),
                    gunzip ? 0 : total, " MB", 1 << 20)) {
                while ((n = in.read(buf)) > 0) {
                    out.write(buf, 0, n);
                    digest.update(buf, 0, n);
                    done += n;
                    bar.update(done, "");
                }
            }
        } catch (IOException e) {
            Files.deleteIfExists(partial);
            throw e;
        }
        String got = HexFormat.of().formatHex(digest.digest());
        if (!sha256.isEmpty() && !sha256.equalsIgnoreCase(got)) {
            Files.deleteIfExists(partial);
            throw new IOException("checksum mismatch: expected sha256 " + sha256 + ", got " + got);
        }
        Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** SHA-256 of a file, hex. */
    public static String sha256(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 20];
            int n;
            while ((n = in.read(buf)) > 0) {
                digest.update(buf, 0, n);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
