// librdkafka (Debian: librdkafka-dev), seen by Swift as the CRdKafka module. Only
// SluiceKafkaClient imports it.
#include <librdkafka/rdkafka.h>
