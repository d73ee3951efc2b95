"""One local Spark session (local[2]) for every test of tests/spark: the JVM starts once.

Every test that asks for that session is marked ``slow``: starting the JVM alone takes 15-20 s on a 2-core
machine and the Spark jobs about 200 s in all, so the quick run (``-m "not peer and not slow"``) keeps only
the tests of this folder that need no JVM (the fake sessions of test_spark_session.py).
"""
from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items):
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()) and HERE in item.path.parents:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def spark():
    pytest.importorskip("pyspark", reason="pyspark is a test dependency: pip install -e '.[test]'")
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").appName("rankwise-tests")
               .config("spark.sql.shuffle.partitions", "4").config("spark.ui.enabled", "false")
               .config("spark.sql.execution.arrow.pyspark.enabled", "true").getOrCreate())
    yield session
    session.stop()
