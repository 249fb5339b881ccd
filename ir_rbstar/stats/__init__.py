"""Statistical inference on per-query evaluation results, built on scipy.stats and statsmodels.

Inputs are per-query values (numpy arrays or pandas Series, two samples paired by position) or a
``run x query`` DataFrame (rows: runs, columns: queries, no missing values) for all pairs of runs.
Every resampling procedure takes ``n_resamples`` and an integer ``seed`` and draws from
``numpy.random.default_rng(seed)``, so a call is reproducible. Invalid input raises
:class:`~ir_rbstar.errors.ParameterError` naming the parameter.

* :func:`mean_intervals` -- intervals of many means at once (the columns of a queries x columns array)
  that respect each measure's range: BCa bootstrap (Efron 1987) with shared resample indices for bounded
  measures, Student's t for unbounded ones.
* :func:`mean_interval` -- t interval (``scipy.stats.t.interval``) or bootstrap percentile / basic /
  BCa interval (``scipy.stats.bootstrap``; BCa: Efron 1987) of a mean.
* :func:`paired_test` -- paired t (``scipy.stats.ttest_rel``), Wilcoxon signed-rank
  (``scipy.stats.wilcoxon``; zero differences dropped by default, ``zero_method='wilcox'``; Wilcoxon 1945,
  Pratt 1959), sign-flip randomisation (``scipy.stats.permutation_test``, ``permutation_type='samples'``;
  see Smucker, Allan & Carterette 2007 for these tests in IR) and a shifted-to-null paired bootstrap test
  (Efron & Tibshirani 1993, ch. 16; Sakai 2006), with the paired effect size d_z = mean(d) / sd(d)
  (Lakens 2013) and its interval: bootstrap percentile, or exact from the noncentral t distribution.
* :func:`effect_size_dz_interval` -- the noncentral-t interval of d_z (Steiger & Fouladi 1997; Cumming &
  Finch 2001), vectorised over any number of difference vectors.
* :func:`all_pairs` -- :func:`paired_test` on every pair of runs, p-values adjusted by
  ``statsmodels.stats.multitest.multipletests`` (default Holm 1979); vectorised over the pairs for the t
  test and the noncentral-t d_z interval (its default).
* :func:`tukey_hsd_randomized` -- the randomised Tukey HSD test of Carterette (2012).
* :func:`experiment_test` -- any of :func:`paired_test`'s tests as ``pt.Experiment(..., test=...)`` takes it.
* :func:`robust_comparison`, :func:`robust_table`, :func:`robust_pairs` -- runs compared with per-query bounds
  (residuals, tie bounds).
* :func:`discriminative_power` -- the share of pairs of runs significantly different (Sakai 2006).
* :func:`ranking_agreement`, :func:`tau_ap`, :func:`ranking_rbo` -- Kendall's tau-b
  (``scipy.stats.kendalltau``), the AP rank correlation tau_AP (Yilmaz, Aslam & Robertson 2008) and the
  rank-biased overlap (Webber, Moffat & Zobel 2010) of two measures' system rankings; with tied scores
  tau_AP and RBO are expectations over random orders of the tied systems (RBO^a of Corsi & Urbano 2024).

Resampled p-values use the (b + 1) / (R + 1) convention (never 0), as scipy's permutation_test does.

References:

* B. Carterette. Multiple testing in statistical analysis of systems-based information retrieval
  experiments. ACM Transactions on Information Systems 30(1), 2012. doi:10.1145/2094072.2094076
* E. Yilmaz, J. A. Aslam, S. Robertson. A new rank correlation coefficient for information retrieval.
  SIGIR 2008, pp. 587-594. doi:10.1145/1390334.1390435
* W. Webber, A. Moffat, J. Zobel. A similarity measure for indefinite rankings. ACM Transactions on
  Information Systems 28(4), 2010. doi:10.1145/1852102.1852106
* M. Corsi, J. Urbano. The treatment of ties in rank-biased overlap. SIGIR 2024.
  doi:10.1145/3626772.3657700
* T. Sakai. Evaluating evaluation metrics based on the bootstrap. SIGIR 2006, pp. 525-532.
  doi:10.1145/1148170.1148261
* M. D. Smucker, J. Allan, B. Carterette. A comparison of statistical significance tests for information
  retrieval evaluation. CIKM 2007. doi:10.1145/1321440.1321528
* B. Efron. Better bootstrap confidence intervals. Journal of the American Statistical Association
  82(397), 1987. doi:10.1080/01621459.1987.10478410
* B. Efron, R. J. Tibshirani. An Introduction to the Bootstrap. Chapman & Hall, 1993.
* F. Wilcoxon. Individual comparisons by ranking methods. Biometrics Bulletin 1(6), 1945. doi:10.2307/3001968
* J. W. Pratt. Remarks on zeros and ties in the Wilcoxon signed rank procedures. Journal of the American
  Statistical Association 54(287), 1959. doi:10.1080/01621459.1959.10501526
* S. Holm. A simple sequentially rejective multiple test procedure. Scandinavian Journal of Statistics
  6(2), 1979.
* J. H. Steiger, R. T. Fouladi. Noncentrality interval estimation and the evaluation of statistical models.
  In L. L. Harlow, S. A. Mulaik, J. H. Steiger (eds.), What if there were no significance tests? Erlbaum,
  1997, pp. 221-257.
* G. Cumming, S. Finch. A primer on the understanding, use, and calculation of confidence intervals that
  are based on central and noncentral distributions. Educational and Psychological Measurement 61(4),
  2001. doi:10.1177/0013164401614002
* M. Dowell, P. Jarratt. A modified regula falsi method for computing the root of an equation. BIT 11,
  1971. doi:10.1007/BF01934364
* D. Lakens. Calculating and reporting effect sizes to facilitate cumulative science: a practical primer
  for t-tests and ANOVAs. Frontiers in Psychology 4:863, 2013. doi:10.3389/fpsyg.2013.00863
"""
from .agreement import RankingAgreement, ranking_agreement, ranking_rbo, tau_ap
from .paired import (MeanInterval, PairedTest, effect_size_dz, effect_size_dz_interval,
                     mean_interval, paired_test)
from .intervals import mean_intervals
from .pairs import CORRECTIONS, all_pairs, discriminative_power, tukey_hsd_randomized
from .experiment import experiment_test
from .robust import RobustComparison, robust_comparison, robust_pairs, robust_table

__all__ = ["mean_interval", "mean_intervals", "paired_test", "all_pairs", "tukey_hsd_randomized",
           "ranking_agreement", "tau_ap", "ranking_rbo",
           "discriminative_power", "effect_size_dz", "effect_size_dz_interval", "MeanInterval",
           "PairedTest", "RankingAgreement",
           "CORRECTIONS", "experiment_test", "robust_comparison", "robust_table", "RobustComparison",
           "robust_pairs"]
