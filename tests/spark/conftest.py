"""One local Spark session (local[2]) for every test of tests/spark: the JVM starts once."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def spark():
    pytest.importorskip("pyspark", reason="pyspark is a test dependency: pip install -e '.[test]'")
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").appName("rankwise-tests")
               .config("spark.sql.shuffle.partitions", "4").config("spark.ui.enabled", "false")
               .config("spark.sql.execution.arrow.pyspark.enabled", "true").getOrCreate())
    yield session
    session.stop()
