// Read wavematch's matches on the JVM with Apicurio's Avro serde, in its Confluent-compatible
// mode (the 5-byte header: 0, then the schema id): no wavematch code.
//
//   javac -cp 'serde/*' ReadMatches.java
//   java -cp 'serde/*:.' ReadMatches BOOTSTRAP REGISTRY_V2_URL MATCH_ID
//
// REGISTRY_V2_URL is Apicurio's own API (http://host:port/apis/registry/v2): the serde
// resolves the id as a content id there. Prints the match as JSON and exits 0 when
// MATCH_ID comes; exits 1 after a minute without it.
import io.apicurio.registry.serde.avro.AvroKafkaDeserializer;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

public class ReadMatches {
    public static void main(String[] args) {
        Properties props = new Properties();
        props.put("bootstrap.servers", args[0]);
        props.put("group.id", "read-matches-" + UUID.randomUUID());
        props.put("auto.offset.reset", "earliest");
        props.put("key.deserializer", StringDeserializer.class.getName());
        props.put("value.deserializer", AvroKafkaDeserializer.class.getName());
        props.put("apicurio.registry.url", args[1]);
        props.put("apicurio.registry.as-confluent", "true");
        props.put("apicurio.registry.use-id", "contentId");
        long deadline = System.currentTimeMillis() + 60_000;
        try (KafkaConsumer<String, GenericRecord> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(List.of("wavematch.matches.v1"));
            while (System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, GenericRecord> record : consumer.poll(Duration.ofMillis(500))) {
                    GenericRecord match = record.value();
                    // A BackfillResult has a session_id, no match_id.
                    if (match.hasField("match_id") && args[2].equals(String.valueOf(match.get("match_id")))) {
                        System.out.println(match.getSchema().getFullName() + " " + match);
                        System.exit(0);
                    }
                }
            }
        }
        System.exit(1);
    }
}
