// What describing one user's SCRAM credentials answers, as the Java admin client sees it:
// prints the Kafka error's name (e.g. CLUSTER_AUTHORIZATION_FAILED) or "described".
// Used by test_acls.py in Java's single-file source mode: librdkafka's admin client
// aborts its process after this refusal, the Java client does not.

import java.io.FileInputStream;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;

public class DescribeScram {
    public static void main(String[] args) throws Exception {
        Properties config = new Properties();
        try (FileInputStream in = new FileInputStream(args[0])) {
            config.load(in);
        }
        try (Admin admin = Admin.create(config)) {
            admin.describeUserScramCredentials(List.of(args[1])).all().get();
            System.out.println("described");
        } catch (ExecutionException failed) {
            if (!(failed.getCause() instanceof ApiException refusal)) {
                throw failed;
            }
            System.out.println(Errors.forException(refusal).name());
        }
    }
}
